import Foundation
import SyncGenerator

exit(GenerateCommand().run(Array(CommandLine.arguments.dropFirst())))
