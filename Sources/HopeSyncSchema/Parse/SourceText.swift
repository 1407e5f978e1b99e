/// schema.yaml's bytes as text. A file that is not UTF-8 is refused at the first byte that
/// is not, by line and column, like every other problem in the file.
public enum SourceText {
    public static func decode(_ bytes: [UInt8], file: String) throws(SchemaError) -> String {
        // A byte order mark is no character of the file (editors on Windows add one).
        let bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        var line = 1
        var column = 1
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                offset += encoded.count
                if encoded.count == 1, encoded.first == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            case .error(let length):
                let shown = bytes[offset..<(offset + length)].map { "0x" + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
                throw SchemaError([
                    Diagnostic(
                        SourceLocation(file: file, line: line, column: column),
                        "the file is not UTF-8: byte \(shown) at offset \(offset) is not a character",
                        hint: "save schema.yaml as UTF-8"
                    )
                ])
            case .emptyInput:
                return String(decoding: bytes, as: UTF8.self)
            }
        }
    }
}
