import Foundation

/// The schedule: pass, wait (the poll interval, slower while pokes are connected; backoff; the
/// slowest pace on schema drift), and wake early for a local write, a reconnect or a poke. A
/// wake for a poke alone pulls the tables it named; any other runs a full pass.
extension SyncEngine {
    func runLoop() async {
        while !Task.isCancelled {
            var delay = pokesConnected ? configuration.pollIntervalWithPokes : configuration.pollInterval
            do {
                switch fullPassDue ? .everything : try pokedPull() {
                case .everything:
                    fullPassDue = false
                    forgetPokes()
                    _ = try await runPass()
                case .tables(let tables):
                    _ = try await runPass(pullingOnly: tables)
                case .nothing:
                    break
                }
                failures = 0
            } catch {
                if Task.isCancelled { break }
                // A failed pass leaves the next one to do everything.
                fullPassDue = true
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
                case .updateRequired:
                    // The build may not write; its pulls go on at the usual pace, and a pass
                    // sends no write until the app is updated: nothing to back off from.
                    break
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

    /// A local write. The first after a quiet spell is pushed at once (nothing to wait for);
    /// those that follow within the debounce interval are pushed together once writes pause
    /// that long. Nothing is pushed early while a failure is being waited out.
    func localWriteHappened() {
        publish()
        guard loop != nil else { return }
        if debounce == nil {
            if failures == 0 { wakeUp() }
        } else {
            writesWaiting = true
        }
        debounce?.task.cancel()
        debounceCount += 1
        let number = debounceCount
        let sleep = configuration.sleep
        let interval = configuration.debounce
        debounce = (
            number,
            Task {
                do { try await sleep(interval) } catch { return }
                self.debounceElapsed(number)
            }
        )
    }

    private func debounceElapsed(_ number: Int) {
        guard debounce?.number == number else { return }
        debounce = nil
        if writesWaiting, failures == 0 { wakeUp() }
        writesWaiting = false
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

    /// Ends the current wait for a full pass (`token` nil: whichever wait; if none, the next).
    func wakeUp(token: Int? = nil) {
        if resumeWait(token: token) { fullPassDue = true }
    }

    /// Ends the current wait (or the next) for what pokes named.
    func wakeForPokes() {
        _ = resumeWait(token: nil)
    }

    /// Whether a wait ended, or the next one will: false for a timer of a wait already over.
    private func resumeWait(token: Int?) -> Bool {
        if let current = wake, token == nil || token == current.token {
            wake = nil
            current.continuation.resume()
            return true
        }
        if token == nil {
            wakePending = true
            return true
        }
        return false
    }
}
