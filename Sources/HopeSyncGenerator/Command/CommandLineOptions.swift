import Foundation

/// The arguments of `generate` and of `generate-verify`. Parsed by hand: ArgumentParser is an
/// outside package.
package struct CommandLineOptions: Sendable {
    package enum Mode: Equatable, Sendable {
        case write
        case check
        case verify(databaseURL: String)
        case initTemplates(directory: String)
        case help
    }

    package var mode: Mode = .write
    package var schemaPath = "schema.yaml"
    package var outputPath: String?
    package var templatesPath: String?
    /// With `--check`: the file written when Generated/ is current (a build plugin's output).
    package var stampPath: String?
    /// `generate-verify --devices DAYS`: the window of the devices-by-version report.
    package var deviceDays = 30

    static let usage = """
        USAGE: generate [--schema PATH] [--output DIR] [--templates DIR] [--check [--stamp FILE]]
               generate --init-templates DIR

        Turns schema.yaml into Generated/: local SQLite migrations, Swift row types, Rust table
        lists and the Supabase SQL.

        OPTIONS:
          --schema PATH         the schema file (default: schema.yaml)
          --output DIR          the generated folder (default: Generated beside the schema)
          --templates DIR       templates that override the built-in ones (default: Templates
                                beside the schema, when it exists)
          --check               write nothing; exit 1 when Generated/ is stale, a migration is
                                pending, or a shipped migration was edited
          --stamp FILE          with --check: write FILE when Generated/ is current, and report
                                a stale Generated/ as an error (for build plugins)
          --init-templates DIR  write the built-in templates into DIR, to edit them
          -h, --help            show this help

        A live database is compared with the schema by `generate-verify` (libpq), a command of
        its own so that generate needs no libpq: `swift run generate-verify --help`.

        EXIT: 0 done / current, 1 stale or missing, 2 bad usage or a file that cannot be read
              or written, 65 invalid schema
        """

    package static let verifyUsage = """
        USAGE: generate-verify --database-url URL [--schema PATH] [--output DIR] [--templates DIR]
                               [--devices DAYS]

        Compares a live database (libpq connection string) with the schema and prints the SQL
        that fixes what is missing, then how many devices synced lately by the schema version of
        their build (what tells when raising oldest_writer strands nobody).

        OPTIONS:
          --database-url URL    the database, as libpq reads it (postgresql://… or key=value)
          --schema PATH         the schema file (default: schema.yaml)
          --output DIR          the generated folder, whose snapshot names the migrations
                                (default: Generated beside the schema)
          --templates DIR       templates that override the built-in ones (default: Templates
                                beside the schema, when it exists)
          --devices DAYS        count the devices that synced in the last DAYS days (default 30)
          -h, --help            show this help

        EXIT: 0 the database has everything, 1 something is missing, 2 bad usage or no
              connection, 65 invalid schema
        """

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    /// `generate`'s arguments, or with `verifying` those of `generate-verify`.
    package static func parse(_ arguments: [String], verifying: Bool = false) throws -> CommandLineOptions {
        var options = CommandLineOptions()
        var rest = arguments[...]
        if verifying {
            options.mode = .verify(databaseURL: "")
        }
        while let argument = rest.popFirst() {
            func value() throws -> String {
                guard let next = rest.popFirst(), !next.hasPrefix("--") else {
                    throw UsageError(description: "\(argument) needs a value")
                }
                return next
            }
            switch argument {
            case "--schema": options.schemaPath = try value()
            case "--output": options.outputPath = try value()
            case "--templates": options.templatesPath = try value()
            case "--stamp": options.stampPath = try value()
            case "--check":
                guard !verifying else { throw UsageError(description: "--check belongs to `generate`") }
                guard options.mode == .write else { throw UsageError(description: "--check cannot be combined with \(options.mode)") }
                options.mode = .check
            case "--database-url":
                guard case .verify = options.mode else { throw UsageError(description: "--database-url belongs to `generate-verify`") }
                options.mode = .verify(databaseURL: try value())
            case "--devices":
                guard verifying else { throw UsageError(description: "--devices belongs to `generate-verify`") }
                guard let days = Int(try value()), days > 0 else {
                    throw UsageError(description: "--devices needs a number of days (1 or more)")
                }
                options.deviceDays = days
            case "--init-templates":
                guard !verifying else { throw UsageError(description: "--init-templates belongs to `generate`") }
                options.mode = .initTemplates(directory: try value())
            case "-h", "--help": options.mode = .help
            default: throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        if options.stampPath != nil, options.mode != .check {
            throw UsageError(description: "--stamp belongs to --check")
        }
        if options.mode == .verify(databaseURL: "") {
            throw UsageError(description: "generate-verify needs --database-url URL")
        }
        return options
    }

    var schemaURL: URL { URL(fileURLWithPath: schemaPath) }

    package var outputURL: URL {
        outputPath.map { URL(fileURLWithPath: $0) } ?? schemaURL.deletingLastPathComponent().appendingPathComponent("Generated")
    }

    /// `--templates`, else Templates/ beside the schema when it exists, else the built-ins.
    package var templatesURL: URL? {
        if let templatesPath { return URL(fileURLWithPath: templatesPath) }
        let beside = schemaURL.deletingLastPathComponent().appendingPathComponent("Templates")
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: beside.path, isDirectory: &isDirectory) && isDirectory.boolValue ? beside : nil
    }
}
