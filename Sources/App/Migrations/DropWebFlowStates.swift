import Storage

/// Version 7: the web flow's `state` is checked against the `SIWA_STATE` cookie alone, as README "The web flow" says
/// (constant-time compare); the single-use record of each issued state that version 4 added is dropped.
enum DropWebFlowStates {
    static func migrate(_ database: Database) throws {
        try database.executeScript("DROP TABLE siwa_states;")
    }
}
