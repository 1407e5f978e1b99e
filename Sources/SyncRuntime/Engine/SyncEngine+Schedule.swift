import Foundation

/// The schedule: pass, wait (poll interval, backoff, or the slowest pace on schema drift), and
/// wake early for a debounced local write or a reconnect.
extension SyncEngine {
    func runLoop() async {
        while !Task.isCancelled {
            var delay = configuration.pollInterval
            do {
                _ = try await runPass()
                failures = 0
            } catch {
                if Task.isCancelled { break }
                switch error.code {
                case .signedOut:
                    // Nobody signed in yet (an auth library can say so at launch): nothing was
                    // sent; look again at the next poll and resume by ourselves at sign-in.
                    break
                case .accessToken:
                    // The server refused the token and a fresh one did not help: wait for one.
                    failures += 1
                    delay = configuration.backoff(afterFailures: failures)
                case .networkDisabled:
                    // Nothing to try until the switch is back on, which wakes us.
                    delay = configuration.backoffCeiling
                case .schemaDrift:
                    // Needs a server migration: retry at the slowest pace, not every poll.
                    failures += 1
                    delay = configuration.backoffCeiling
                default:
                    failures += 1
                    delay = configuration.backoff(afterFailures: failures)
                    if !error.isNetworkFailure {
                        status.phase = .backingOff(until: configuration.now().addingTimeInterval(delay.seconds))
                        publish()
                    }
                }
            }
            await waitForWake(upTo: delay)
        }
    }

    /// A local write: push once writes have paused for the debounce interval, unless a failure
    /// is being waited out.
    func localWriteHappened() {
        publish()
        guard loop != nil else { return }
        debounce?.cancel()
        let sleep = configuration.sleep
        let interval = configuration.debounce
        debounce = Task {
            do { try await sleep(interval) } catch { return }
            self.debounceElapsed()
        }
    }

    private func debounceElapsed() {
        if failures == 0 { wakeUp() }
    }

    private func waitForWake(upTo delay: Duration) async {
        if wakePending {
            wakePending = false
            return
        }
        waitCount += 1
        let token = waitCount
        let sleep = configuration.sleep
        let timer = Task {
            do { try await sleep(delay) } catch { return }
            self.wakeUp(token: token)
        }
        await withCheckedContinuation { wake = (token, $0) }
        timer.cancel()
    }

    /// Ends the current wait (`token` nil: whichever it is; if none, the next one).
    func wakeUp(token: Int? = nil) {
        if let current = wake, token == nil || token == current.token {
            wake = nil
            current.continuation.resume()
        } else if token == nil {
            wakePending = true
        }
    }
}

extension Duration {
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
