/// A YAML value as canonical JSON text: keys sorted by their UTF-8 bytes, no spaces, numbers
/// in Swift's shortest round-trip form. The same value always gives the same bytes, so a
/// default never shows up as a change in the schema diff just because it was re-spelt.
enum CanonicalJSON {
    static func text(of node: YAMLNode) -> String {
        var output = ""
        write(node, to: &output)
        return output
    }

    private static func write(_ node: YAMLNode, to output: inout String) {
        switch node.content {
        case .scalar(let scalar):
            switch scalar.value {
            case .null: output += "null"
            case .bool(let flag): output += flag ? "true" : "false"
            case .int(let integer): output += String(integer)
            case .double(let number): output += number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            case .string(let text): writeString(text, to: &output)
            }
        case .sequence(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                write(item, to: &output)
            }
            output += "]"
        case .mapping(let entries):
            output += "{"
            let sorted = entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, entry) in sorted.enumerated() {
                if index > 0 { output += "," }
                writeString(entry.key, to: &output)
                output += ":"
                write(entry.value, to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
