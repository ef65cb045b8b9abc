internal import Clock
internal import JSON

extension ReleaseControlMachine {
    /// Applies a finished request: an answer, a 304, a failure, or an ingest/registration result.
    mutating func completed(_ purpose: Purpose, _ result: TransportResult, now: Instant, into actions: inout [Action]) {
        switch purpose {
        case .check:
            guard case .inFlight(let followUp) = check else { return }  // from before a terminate
            check = .idle
            switch result {
            case .success(let response) where response.status == 200:
                do {
                    let answer = try CheckAnswer.parse(response.body)
                    apply(answer, response, now: now, into: &actions)
                } catch {
                    failed(CheckFailure(kind: .body, status: 200, reason: error.reason, at: now), into: &actions)
                }
            case .success(let response) where response.status == 304:
                statistics.notModified += 1
                renew(response, now: now, into: &actions)
            case .success(let response):
                failed(CheckFailure(status: response, at: now), into: &actions)
            case .failure(let error):
                failed(CheckFailure(kind: .connection, reason: error.reason, at: now), into: &actions)
            }
            if followUp { startCheckAfterCompletion(now: now, into: &actions) }
            if check == .idle { actions.append(.checkSettled) }
        case .ingest(let module, let count):
            guard ingestInFlight.remove(module) != nil else { return }
            if case .success(let response) = result, (200..<300).contains(response.status) {
                var items = saved.queue[module] ?? []
                items.removeFirst(min(count, items.count))
                saved.queue[module] = items.isEmpty ? nil : items
                statistics.sent[module, default: 0] += count
                persist(into: &actions)
            }
        case .pushToken:
            guard tokenRegistration == .inFlight else { return }
            if case .success(let response) = result, (200..<300).contains(response.status) {
                tokenRegistration = .notDue
                statistics.tokenRegistrations += 1
            } else {
                tokenRegistration = .due
            }
        }
    }

    private mutating func failed(_ failure: CheckFailure, into actions: inout [Action]) {
        statistics.failedChecks += 1
        let repeated = lastCheckFailure.map { $0.kind == failure.kind && $0.reason == failure.reason } ?? false
        lastCheckFailure = failure
        // Said once per kind of failure, not on every poll of a long outage.
        if !(repeated && failedSinceSuccess) { actions.append(.checkFailed(failure)) }
        failedSinceSuccess = true
    }

    private mutating func startCheckAfterCompletion(now: Instant, into actions: inout [Action]) {
        guard isRunning, configuration.enabled, isOnline else { return }
        check = .inFlight(followUp: false)
        lastAttempt = now
        statistics.checks += 1
        actions.append(.send(checkRequest(), .check))
    }

    /// Takes every usable part of a 200 answer; an unusable part keeps the saved value.
    private mutating func apply(
        _ answer: CheckAnswer,
        _ response: TransportResponse,
        now: Instant,
        into actions: inout [Action]
    ) {
        if let serverTime = answer.serverTime.value ?? Self.headerServerTime(response) {
            saved.serverOffsetMilliseconds = serverTime.milliseconds(since: now)
        }
        if let lifetime = answer.lifetime.value ?? maxAge(response) { saved.lifetime = lifetime }
        if configuration.hasVersion {
            if case .value(let update) = answer.requiredUpdate { saved.requiredUpdate = update }
            if case .value(let update) = answer.optionalUpdate { saved.optionalUpdate = update }
        } else {
            // A device without a version is never blocked by an update rule, whatever arrives.
            saved.requiredUpdate = nil
            saved.optionalUpdate = nil
        }
        if case .value(let windows) = answer.maintenance { saved.maintenance = windows }
        if case .value(let switches) = answer.sdkSwitches { saved.sdkSwitches = switches }
        saved.etag = answer.isComplete ? response.header("ETag") : nil
        saved.receivedAt = now
        saved.lastSuccess = now
        failedSinceSuccess = false
        saved.appVersion = configuration.appVersion
        saved.build = configuration.build
        lastPersistedRenewal = now
        persist(into: &actions)
    }

    /// A 304: the saved answer is current again, with a new lifetime and clock reference.
    private mutating func renew(_ response: TransportResponse, now: Instant, into actions: inout [Action]) {
        var significant = false
        if let serverTime = Self.headerServerTime(response) {
            let offset = serverTime.milliseconds(since: now)
            if abs(offset - saved.serverOffsetMilliseconds) >= 1000 { significant = true }
            saved.serverOffsetMilliseconds = offset
        }
        if let lifetime = maxAge(response), lifetime != saved.lifetime {
            saved.lifetime = lifetime
            significant = true
        }
        saved.receivedAt = now
        saved.lastSuccess = now
        failedSinceSuccess = false
        // Renewals alone are written now and then, not on every poll: losing a few minutes of
        // freshness in a crash costs nothing, a write per minute per device costs battery.
        let sincePersist = lastPersistedRenewal.map { now.milliseconds(since: $0) } ?? Int64.max
        if significant || sincePersist >= Self.renewalPersistSeconds * 1000 || sincePersist < 0 {
            lastPersistedRenewal = now
            persist(into: &actions)
        } else {
            renewalUnsaved = true
        }
    }

    static func headerServerTime(_ response: TransportResponse) -> Instant? {
        guard let text = response.header("Lerix-Server-Time") else { return nil }
        // Trimmed only when it does not read as sent: no time reads with spaces around it, and
        // servers send none (looking for them cost more than the parse).
        return lastServerTime.value(for: text) { Instant(rfc3339: $0) ?? Instant(rfc3339: $0.trimmingSpaces) }
    }

    /// The last server time read, shared by every instance: a fleet's devices answered at one
    /// instant read the same text (mostly the very string), parsed once.
    private static let lastServerTime = LastMade<String, Instant?>()

    /// `max-age` from `Cache-Control`, when positive. A device's answers mostly repeat the last
    /// value (the server makes it once per answer, so it is even the same string): that one is
    /// not read again.
    mutating func maxAge(_ response: TransportResponse) -> Int? {
        guard let value = response.header("Cache-Control") else { return nil }
        if let last = lastCacheControl, last.value == value { return last.maxAge }
        let read = Self.maxAge(value)
        lastCacheControl = CacheControlReading(value: value, maxAge: read)
        return read
    }

    /// A `Cache-Control` value and the `max-age` read from it.
    struct CacheControlReading {
        let value: String
        let maxAge: Int?
    }

    /// `max-age` from a `Cache-Control` value, when positive (read in place as bytes).
    static func maxAge(_ value: String) -> Int? {
        var value = value
        return value.withUTF8 { maxAge(in: $0) }
    }

    private static func maxAge(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let name: StaticString = "max-age"
        let nameBytes = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var i = 0
        while i + nameBytes.count <= bytes.count {
            var match = true
            for k in 0..<nameBytes.count {
                let b = bytes[i + k]
                if (b >= 65 && b <= 90 ? b + 32 : b) != nameBytes[k] {
                    match = false
                    break
                }
            }
            let boundary = i == 0 || bytes[i - 1] == 44 || bytes[i - 1] == 32 || bytes[i - 1] == 9
            if match && boundary {
                var j = i + nameBytes.count
                while j < bytes.count, bytes[j] == 32 { j += 1 }
                guard j < bytes.count, bytes[j] == 61 else { return nil }
                j += 1
                while j < bytes.count, bytes[j] == 32 { j += 1 }
                var seconds = 0
                var digits = 0
                while j < bytes.count, bytes[j] >= 48, bytes[j] <= 57, digits < 10 {
                    seconds = seconds * 10 + Int(bytes[j] - 48)
                    digits += 1
                    j += 1
                }
                return digits > 0 && seconds > 0 ? seconds : nil
            }
            i += 1
        }
        return nil
    }
}

extension String {
    var trimmingSpaces: String {
        let bytes = utf8
        // Header values mostly come without spaces around them: nothing to look for.
        if let head = bytes.first, let tail = bytes.last, head != 32, head != 9, tail != 32, tail != 9 { return self }
        guard let first = bytes.firstIndex(where: { $0 != 32 && $0 != 9 }),
            let last = bytes.lastIndex(where: { $0 != 32 && $0 != 9 })
        else { return "" }
        if first == bytes.startIndex && last == bytes.index(before: bytes.endIndex) { return self }
        return String(decoding: Array(bytes[first...last]), as: UTF8.self)
    }
}
