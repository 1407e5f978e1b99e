/// How many writes wait where, read in one transaction.
struct WaitingCounts {
    var dirty: Int
    var pending: Int
    var conflicted: Int
    var rejected: Int
}
