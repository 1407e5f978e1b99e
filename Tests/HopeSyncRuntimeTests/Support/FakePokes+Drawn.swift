import HopeSyncTestSupport

extension FakePokes.Faults {
    /// Faults of a run: up to half the pokes lost, a third doubled, 20 ms late, and a
    /// connection dropped at one poke in ten.
    static func drawn(_ random: inout SeededGenerator) -> Self {
        Self(
            drop: Double(random.below(51)) / 100, duplicate: Double(random.below(34)) / 100, delay: 0...random.below(21),
            disconnect: Double(random.below(11)) / 100)
    }
}
