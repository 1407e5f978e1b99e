/// What a scalar means under the YAML 1.2 core schema, restricted to what a schema needs:
/// decimal numbers only, and `true`/`false` as the only bools (no 1.1 `yes`/`no`).
enum ScalarValue: Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    /// A number that is not a 64-bit integer: a fraction, an exponent, or an integer too large.
    case double(Double)
    case string(String)
}

extension YAMLScalar {
    var value: ScalarValue {
        if isQuoted { return .string(text) }
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        guard text.isDecimalNumber else { return .string(text) }
        if let integer = Int64(text) { return .int(integer) }
        if let number = Double(text), number.isFinite { return .double(number) }
        return .string(text)
    }

    /// True when the scalar is written as an integer, whether or not it fits in 64 bits.
    var looksLikeInteger: Bool {
        !isQuoted && text.isDecimalNumber && !text.contains { $0 == "." || $0 == "e" || $0 == "E" }
    }
}

extension String {
    /// `[-+]?(digits[.digits?]|.digits)([eE][-+]?digits)?`, checked by hand so that Double's
    /// own parser (which also takes "inf", "nan" and hex floats) only ever sees decimals.
    var isDecimalNumber: Bool {
        var bytes = utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
