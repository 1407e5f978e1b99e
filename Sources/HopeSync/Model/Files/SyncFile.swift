import Foundation
import HopeSyncModel

/// A file column's value: a file named by its content, `<sha256 of the bytes, hex>.<extension>`
/// (or the hash alone). The same bytes always have the same name, so a name never points at
/// other bytes, two devices attaching the same photo make one Storage object, and a copy is
/// checked against its name when it arrives. The object lives at `<user_id>/<name>` in the
/// column's bucket (`objectPath(owner:)`), a shared row's at `<scope_id>/<name>`; each device
/// keeps its own copy in the store's folder.
public struct SyncFile: Hashable, Sendable, Codable, CustomStringConvertible {
    /// `<64 lowercase hex digits>[.<1 to 16 lowercase letters or digits>]`.
    public let name: String

    /// The name a file column holds; nil for anything else, so a name is always safe as a file
    /// name and a path segment.
    public init?(name: String) {
        guard Self.isValid(name) else { return nil }
        self.name = name
    }

    /// The name of bytes whose SHA-256 is `digest`, with an extension (lowercased; one that is
    /// not 1 to 16 letters or digits is dropped).
    init(sha256 digest: [UInt8], fileExtension: String?) {
        let suffix = fileExtension.map { $0.lowercased() }.flatMap { Self.isValidExtension(Substring($0)) ? "." + $0 : nil } ?? ""
        name = SHA256.hexDigits(digest) + suffix
    }

    /// The SHA-256 of the file's bytes, hex.
    public var sha256: String { String(name.prefix(64)) }

    /// The extension after the hash, if any.
    public var fileExtension: String? {
        name.count > 64 ? String(name.dropFirst(65)) : nil
    }

    /// Where the object is in its bucket: the owner's folder, then the name.
    package func objectPath(owner: UUID) -> String {
        owner.lowercasedString + "/" + name
    }

    public var description: String { name }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let file = SyncFile(name: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a file name (<sha256>.<extension>)")
        }
        self = file
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(name)
    }

    static func isValid(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count >= 64, utf8.prefix(64).allSatisfy(isLowercaseHex) else { return false }
        guard utf8.count > 64 else { return true }
        return utf8.dropFirst(64).first == UInt8(ascii: ".") && isValidExtension(Substring(name).dropFirst(65))
    }

    private static func isValidExtension(_ text: Substring) -> Bool {
        (1...16).contains(text.utf8.count)
            && text.utf8.allSatisfy { isLowercaseHex($0) || (UInt8(ascii: "g")...UInt8(ascii: "z")).contains($0) }
    }

    private static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
