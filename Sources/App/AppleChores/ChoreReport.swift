/// What a chore run printed and how the command exits: 0 when everything due was done, 1 when some is left.
package struct ChoreReport: Sendable, CustomStringConvertible {
    package var summary: String
    package var exitStatus: Int32
    package var description: String { summary }
}
