/// JSON numbers as PostgreSQL's jsonb holds them: jsonb keeps a number as `numeric` and prints
/// numeric's text, with no exponent and the scale the literal gave (`1E+2` is `100`, `1.50e-1` is
/// `0.150`, `-0` is `0`, `0e-2` is `0.00`). The canonical text writes that, so a value has one
/// text on the device that saved it, on the server and on every device that pulled it.
extension JSONParser {
    /// numeric's limits (PostgreSQL 15): at most 16383 digits after the point; a first digit
    /// worth at most 10^131071; and, checked before either, an exponent below 2^30 - 1, so even
    /// `0e1073741823` is refused.
    static let numericMaximumScale = 16_383
    static let numericMaximumPower = 131_071
    static let numericExponentLimit = 1_073_741_823

    /// Writes the number at `index` as numeric prints it, or refuses one numeric cannot hold.
    mutating func writeCanonicalNumber(into output: inout [UInt8]) throws(JSONSyntaxError) {
        let number = try scanNumber()
        let negative = bytes[number.literal.lowerBound] == UInt8(ascii: "-")
        // JSON allows no leading zeros, so a plain literal is numeric's text unless it is -0.
        if number.exponent == nil, number.integerDigits.count <= Self.numericMaximumPower + 1,
            number.fractionDigits.count <= Self.numericMaximumScale, !(negative && isZero(number))
        {
            output += bytes[number.literal]
            return
        }
        let outOfRange = JSONSyntaxError(
            offset: number.literal.lowerBound, reason: "a number beyond numeric's range (131072 digits before the point, 16383 after)",
            kind: .numberOutOfRange)
        let exponent = exponentValue(number)
        guard abs(exponent) < Self.numericExponentLimit else { throw outOfRange }
        let scale = max(0, number.fractionDigits.count - exponent)
        guard scale <= Self.numericMaximumScale else { throw outOfRange }
        // The digits as one run, integer then fraction: digit i is worth 10^(lowestPower + count - 1 - i).
        let count = number.integerDigits.count + number.fractionDigits.count
        func digit(_ position: Int) -> UInt8 {
            position < number.integerDigits.count
                ? bytes[number.integerDigits.lowerBound + position]
                : bytes[number.fractionDigits.lowerBound + position - number.integerDigits.count]
        }
        let lowestPower = exponent - number.fractionDigits.count
        var highestPower = -1
        if let first = (0..<count).first(where: { digit($0) != UInt8(ascii: "0") }) {
            highestPower = count - 1 - first + lowestPower
            guard highestPower <= Self.numericMaximumPower else { throw outOfRange }
            if negative { output.append(UInt8(ascii: "-")) }
        }
        for power in stride(from: max(highestPower, 0), through: -scale, by: -1) {
            if power == -1 { output.append(UInt8(ascii: ".")) }
            let position = count - 1 - (power - lowestPower)
            output.append(position >= 0 && position < count ? digit(position) : UInt8(ascii: "0"))
        }
    }

    private func isZero(_ number: NumberParts) -> Bool {
        bytes[number.integerDigits.lowerBound] == UInt8(ascii: "0")
            && bytes[number.fractionDigits].allSatisfy { $0 == UInt8(ascii: "0") }
    }

    /// The exponent, 0 without one; a larger one than numeric takes counts as its limit.
    private func exponentValue(_ number: NumberParts) -> Int {
        guard var digits = number.exponent else { return 0 }
        let sign = bytes[digits.lowerBound]
        if sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { digits = digits.dropFirst() }
        var value = 0
        for byte in bytes[digits] { value = min(value * 10 + Int(byte - UInt8(ascii: "0")), Self.numericExponentLimit) }
        return sign == UInt8(ascii: "-") ? -value : value
    }
}

extension JSONValue {
    /// numeric's text of the number `literal`; the literal itself when it is not a JSON number
    /// or numeric cannot hold it.
    static func canonicalNumber(_ literal: String) -> String {
        var parser = JSONParser(bytes: Array(literal.utf8), maximumDepth: 1)
        var output: [UInt8] = []
        guard (try? parser.writeCanonicalNumber(into: &output)) != nil, parser.index == parser.bytes.count else { return literal }
        return String(decoding: output, as: UTF8.self)
    }
}
