import HopeSyncModel

/// A YAML value as a JSON document, written in the one canonical text every part of the system
/// uses (``JSONValue/canonicalText``). The same value always gives the same bytes, so a default
/// never shows up as a change in the schema diff just because it was re-spelt.
enum CanonicalJSON {
    static func text(of node: YAMLNode) -> String {
        value(of: node).canonicalText
    }

    private static func value(of node: YAMLNode) -> JSONValue {
        switch node.content {
        case .scalar(let scalar):
            switch scalar.value {
            case .null: .null
            case .bool(let flag): .bool(flag)
            case .int(let integer): .number(String(integer))
            // Swift's shortest round-trip form; a whole number without its ".0".
            case .double(let number): .number(number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number))
            case .string(let text): .string(text)
            }
        case .sequence(let items): .array(items.map(value(of:)))
        case .mapping(let entries): .object(entries.map { (key: $0.key, value: value(of: $0.value)) })
        }
    }
}
