import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Hands URLSession's progress of one transfer to a closure: the bytes sent, or received and
/// the total when known.
final class TransferProgress: NSObject, URLSessionTaskDelegate, URLSessionDownloadDelegate, Sendable {
    private let sent: (@Sendable (Int64) -> Void)?
    private let received: (@Sendable (Int64, Int64?) -> Void)?

    init(sent: @escaping @Sendable (Int64) -> Void) {
        self.sent = sent
        self.received = nil
    }

    init(received: @escaping @Sendable (Int64, Int64?) -> Void) {
        self.sent = nil
        self.received = received
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        sent?(totalBytesSent)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64, totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        received?(totalBytesWritten, totalBytesExpectedToWrite > 0 ? totalBytesExpectedToWrite : nil)
    }

    /// The async download API hands the file over itself.
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {}
}
