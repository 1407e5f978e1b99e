import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `generate verify` is the command `generate-verify`, a product of its own, so that `generate`
/// and the plugins that run it link no libpq. The `generate` executable runs `generate-verify`
/// when it sits beside it (as after `swift build`); otherwise `generate verify` says what to run.
extension GenerateCommand {
    /// The executable `generate verify` hands its arguments to.
    public static let verifyExecutableName = "generate-verify"

    /// The one-line error of `generate verify ARGUMENTS`: the command to run instead, with the
    /// same arguments but the database URL, which may hold a password and goes to no log.
    static func verifyMoved(_ arguments: [String]) -> String {
        var shown: [String] = []
        var hidesURL = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            shown.append(shellQuoted(argument))
            if argument == "--database-url", !rest.isEmpty {
                rest.removeFirst()
                shown.append("URL")
                hidesURL = true
            }
        }
        let command = (["swift", "run", verifyExecutableName] + shown).joined(separator: " ")
        return "error: verify is a command of its own, so that generate needs no libpq: run `\(command)`"
            + (hidesURL ? " (URL: the connection string you gave)" : "")
    }

    /// `argument` as a shell reads it back: as it is when it is plain, else in single quotes.
    static func shellQuoted(_ argument: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@%+,")
        if !argument.isEmpty, argument.allSatisfy(plain.contains) { return argument }
        return "'" + argument.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// The `generate-verify` executable beside `executable` (the running `generate`, symbolic
    /// links resolved), when there is one.
    package static func verifyExecutable(beside executable: URL?) -> URL? {
        guard let executable else { return nil }
        let candidate = executable.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(verifyExecutableName)
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    /// Replaces this process with `executable` run with `arguments`, its standard input, output
    /// and error, and so its exit status, this process's. Returns only when it cannot.
    package static func replaceProcess(with executable: URL, arguments: [String]) {
        let argv = ([executable.path] + arguments).map { strdup($0) }
        defer { for argument in argv { free(argument) } }
        _ = execv(executable.path, argv + [nil])
    }
}
