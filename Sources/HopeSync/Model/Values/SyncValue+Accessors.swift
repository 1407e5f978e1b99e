extension SyncValue {
    /// The text, when the value is text.
    public var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The integer, when the value is an integer.
    public var int: Int64? {
        if case .int(let int) = self { return int }
        return nil
    }
}
