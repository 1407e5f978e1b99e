import Foundation
import HopeSyncGenerator

let arguments = Array(CommandLine.arguments.dropFirst())
// `generate verify …` is `generate-verify …`, run here when it was built beside this binary.
if arguments.first == "verify", let verify = GenerateCommand.verifyExecutable(beside: Bundle.main.executableURL) {
    GenerateCommand.replaceProcess(with: verify, arguments: Array(arguments.dropFirst()))
}
exit(GenerateCommand().run(arguments))
