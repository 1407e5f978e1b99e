import Foundation
import HopeSyncVerify

exit(VerifyCommand().run(Array(CommandLine.arguments.dropFirst())))
