extension Database {
    /// Runs `body` and returns, with its result, the tables read by the statements it used
    /// (``DatabaseRegion/fullDatabase`` when it ran SQL through ``execute(_:)``). Nested calls
    /// count toward the outer one too.
    public func recordingReads<T>(_ body: () throws -> T) rethrows -> (T, DatabaseRegion) {
        let outer = hooks.recording
        hooks.recording = DatabaseRegion()
        var region = DatabaseRegion()
        defer {
            if var outer {
                outer.formUnion(region)
                hooks.recording = outer
            } else {
                hooks.recording = nil
            }
        }
        let result = try body()
        region = hooks.recording ?? .fullDatabase
        return (result, region)
    }

    /// Starts recording the tables each committed transaction changes; ``DatabaseQueue``
    /// hands them to the returned ``CommittedChanges`` when each access ends.
    func trackChanges() -> CommittedChanges {
        hooks.trackChanges(on: handle)
    }
}
