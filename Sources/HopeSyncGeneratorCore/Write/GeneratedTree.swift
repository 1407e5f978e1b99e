import Foundation

/// The files under Generated/, by path relative to it. What `generate` makes and what is on
/// disk are both trees; writing and checking compare the two.
public struct GeneratedTree: Equatable, Sendable {
    public var files: [String: String]

    public init(files: [String: String] = [:]) {
        self.files = files
    }

    public subscript(path: String) -> String? {
        get { files[path] }
        set { files[path] = newValue }
    }

    /// Every file under `directory`; an absent directory is an empty tree.
    public static func read(from directory: URL) throws -> GeneratedTree {
        var tree = GeneratedTree()
        let root = directory.standardizedFileURL.path
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return tree }
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let path = root + "/" + relative
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            tree.files[relative] = try String(contentsOfFile: path, encoding: .utf8)
        }
        return tree
    }
}
