import Foundation

extension Subprocess {
    /// Where a captured stream lands: a pipe, read as the child writes, or a nameless file, read
    /// once it has ended.
    enum Capture {
        case pipe
        case file
    }

    static func spawn(_ command: Command, capture: Capture) throws -> Child {
        precondition(command.output != .intoOutput, "only standard error goes into standard output")
        let executable = try path(of: command.executable)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let output = try route(command.output, to: 1, capture, &actions)
        let error = try route(command.error, to: 2, capture, &actions)
        if let directory = command.directory {
            _ = try glibc("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)(&actions, directory.path)
        }
        // Only 0, 1 and 2 reach the child; this closes the rest, the pipes' ends and whatever of
        // this process's lacks close-on-exec among them.
        _ = try glibc("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)(&actions, 3)

        // A Swift test process blocks most signals in its threads, and the mask, like ignored
        // signals, passes across exec: a server's SIGTERM would never arrive.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = (command.environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        // argv[0] as given, as a shell does (a name looked up stays a name).
        let result = withCStrings([command.executable] + command.arguments) { arguments in
            withCStrings(environment) { environment in posix_spawn(&pid, executable, &actions, &attributes, arguments, environment) }
        }
        // The child has its own copies of the pipes' write ends; this process's must close for
        // the reader to see the end.
        for stream in [output, error].compactMap({ $0 }) where stream.theirs !== stream.ours { try? stream.theirs.close() }
        guard result == 0 else {
            let place = command.directory.map { " in \($0.path)" } ?? ""
            throw Failure("cannot run \(command)\(place): \(String(cString: strerror(result)))")
        }
        return Child(command: command, pid: pid, output: output?.ours, error: error?.ours)
    }

    /// `name` itself when it is a path (has a slash); otherwise the first executable file of that
    /// name in this process's PATH.
    static func path(of name: String) throws -> String {
        guard !name.contains("/") else { return name }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Failure("cannot run \(name): not found on the PATH")
    }

    /// A captured stream: the end this process reads, and what the child writes to (the same
    /// file, or a pipe's other end).
    private struct Stream {
        let ours: FileHandle
        let theirs: FileHandle
    }

    /// Points the child's descriptor `target` (1 or 2) where `output` says; a captured one's stream.
    private static func route(
        _ output: Output, to target: Int32, _ capture: Capture, _ actions: inout posix_spawn_file_actions_t
    ) throws -> Stream? {
        switch output {
        case .capture:
            let stream = try capture == .pipe ? pipe() : scratchFile()
            posix_spawn_file_actions_adddup2(&actions, stream.theirs.fileDescriptor, target)
            return stream
        case .discard:
            posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
        case .inherit:
            break
        case .intoOutput:
            posix_spawn_file_actions_adddup2(&actions, 1, target)
        }
        return nil
    }

    /// Both ends close on exec (from the start: pipe2), and when released: only the copy dup2
    /// makes reaches the child.
    private static func pipe() throws -> Stream {
        var ends: [Int32] = [-1, -1]
        guard try glibc("pipe2", as: Pipe2.self)(&ends, O_CLOEXEC) == 0 else {
            throw Failure("cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        return Stream(
            ours: FileHandle(fileDescriptor: ends[0], closeOnDealloc: true),
            theirs: FileHandle(fileDescriptor: ends[1], closeOnDealloc: true))
    }

    /// A file removed as soon as it is open: nothing is left behind, even by a crash.
    private static func scratchFile() throws -> Stream {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("subprocess-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure("cannot make \(path): \(String(cString: strerror(errno)))") }
        unlink(path)
        let file = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        return Stream(ours: file, theirs: file)
    }

    /// `strings` as a C array ending in NULL, for the length of `body`.
    private static func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }

    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32

    /// A glibc function by name: pipe2 and the `_np` file actions (glibc 2.29 and 2.34) are
    /// declared only under _GNU_SOURCE, which Swift's Glibc module does not define.
    private static func glibc<Function>(_ name: String, as type: Function.Type) throws -> Function {
        guard let symbol = dlsym(nil, name) else { throw Failure("this C library has no \(name)") }
        return unsafeBitCast(symbol, to: type)
    }
}
