import Testing
@testable import HTTPCore

/// The per-iteration read budget at its boundary.
struct ReadBudgetTests {
    @Test func spentAtExactlyBytesPerTurnAndRenewedWhole() {
        var budget = ReadBudget()
        #expect(ReadBudget.bytesPerTurn == 128 * 1024)
        budget.spend(ReadBudget.bytesPerTurn - 1)
        #expect(!budget.isSpent)
        #expect(budget.remaining == 1)
        budget.spend(1)
        #expect(budget.isSpent)
        #expect(budget.remaining == 0)
        budget.renew()
        #expect(!budget.isSpent)
        #expect(budget.remaining == ReadBudget.bytesPerTurn)
    }
}
