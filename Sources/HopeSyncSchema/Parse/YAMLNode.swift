/// A place in the YAML source, 1-based like the diagnostics that point at it.
struct YAMLMark: Sendable, Equatable {
    var line: Int
    var column: Int
}

/// One node of a YAML document as schema.yaml may write it: no anchors, aliases or tags, so
/// the tree is exactly what the user sees in the file.
struct YAMLNode: Sendable {
    enum Content: Sendable {
        case scalar(YAMLScalar)
        case sequence([YAMLNode])
        /// Entries in source order, each key once (a repeated key is a diagnostic, not an entry).
        case mapping([YAMLEntry])
    }

    var content: Content
    var mark: YAMLMark

    var scalar: YAMLScalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    var mapping: [YAMLEntry]? {
        if case .mapping(let entries) = content { return entries }
        return nil
    }
}

struct YAMLScalar: Sendable, Equatable {
    var text: String
    /// Quoted and block scalars are always strings; only plain ones can mean null, a bool or a
    /// number. So `"true"` is the string true, never the bool.
    var isQuoted: Bool
}

struct YAMLEntry: Sendable {
    var key: String
    var keyMark: YAMLMark
    var value: YAMLNode
}

extension YAMLNode {
    /// What the node is, for "expected X, found Y" messages.
    var kindDescription: String {
        switch content {
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .scalar(let scalar):
            switch scalar.value {
            case .null: return "nothing"
            case .bool(let value): return "the bool \(value)"
            case .int, .double: return "the number \(scalar.text)"
            case .string(let text): return "the string '\(text.abbreviated)'"
            }
        }
    }
}

extension YAMLNode {
    /// The bool a quoted scalar spells, such as `"true"`: a string, though likely meant as a bool.
    var quotedBool: Bool? {
        guard let scalar, scalar.isQuoted else { return nil }
        switch scalar.text.lowercased() {
        case "true": return true
        case "false": return false
        default: return nil
        }
    }
}

extension String {
    /// Short enough to quote inside a one-line diagnostic.
    var abbreviated: String {
        let limit = 40
        let firstLine = prefix { $0 != "\n" && $0 != "\r" }
        if count <= limit && firstLine.count == count { return self }
        return String(firstLine.prefix(limit)) + "..."
    }
}
