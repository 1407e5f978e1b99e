import Foundation
import HopeSyncGeneratorCore
import HopeSyncSchema

extension GenerateCommand {
    /// What a command prints when it stops, and the status it exits with.
    package struct Failure: Error {
        package let message: String
        package let code: Int32

        package init(_ message: String, _ code: Int32) {
            self.message = message
            self.code = code
        }

        /// Prints the message as an error; returns the status.
        package func report(on console: Console) -> Int32 {
            console.error(message)
            return code
        }
    }
}

extension CommandLineOptions {
    /// Reads and parses schema.yaml, the pipeline's first stage: before the templates and
    /// Generated/ are read, so a bad schema is reported first.
    package func readSchema() -> Result<ParsedSchema, GenerateCommand.Failure> {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: schemaURL)
        } catch {
            return .failure(.init("error: cannot read \(schemaPath): \(error.localizedDescription)", GenerateCommand.ExitCode.usage))
        }
        do {
            return .success(try ParseStage().run(SchemaFile(bytes: Array(bytes), name: schemaPath)))
        } catch {
            return .failure(.init(error.description, GenerateCommand.ExitCode.invalidSchema))
        }
    }
}
