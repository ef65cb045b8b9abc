import Clock
import HTTP
import Testing

@testable import Push

@Suite struct RetryStateTests {
    let now = Instant(secondsSinceEpoch: 1_800_000_000)
    let policy = RetryPolicy(
        maxAttempts: 4,
        initialBackoffMilliseconds: 100,
        maxBackoffMilliseconds: 250,
        maxRetryAfterMilliseconds: 10_000
    )

    func body(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func backoffDoublesAndIsCapped() {
        #expect(policy.backoff(afterAttempt: 1) == 100)
        #expect(policy.backoff(afterAttempt: 2) == 200)
        #expect(policy.backoff(afterAttempt: 3) == 250)
        #expect(
            RetryPolicy(initialBackoffMilliseconds: 1 << 40, maxBackoffMilliseconds: .max).backoff(afterAttempt: 200)
                == .max
        )
    }

    @Test func serverErrorsRetryWithBackoffThenGiveUpNamingTheReason() {
        var state = RetryState()
        let verdict = ProviderResponse.verdict(
            .apns,
            status: 503,
            headers: [:],
            body: body(#"{"reason":"ServiceUnavailable"}"#),
            now: now
        )
        #expect(verdict == .retryable(reason: "503 ServiceUnavailable", retryAfterMilliseconds: nil))
        state.attemptStarted()
        do {
            let got = state.attemptFinished(verdict, policy: policy, now: now)
            #expect(got == .retry(at: now.adding(milliseconds: 100)))
        }
        state.attemptStarted()
        do {
            let got = state.attemptFinished(verdict, policy: policy, now: now)
            #expect(got == .retry(at: now.adding(milliseconds: 200)))
        }
        state.attemptStarted()
        do {
            let got = state.attemptFinished(verdict, policy: policy, now: now)
            #expect(got == .retry(at: now.adding(milliseconds: 250)))
        }
        state.attemptStarted()
        do {
            let got = state.attemptFinished(verdict, policy: policy, now: now)
            #expect(got == .finish(.failed(reason: "503 ServiceUnavailable (gave up after 4 attempts)")))
        }
    }

    @Test func tooManyRequestsHonoursRetryAfterSeconds() {
        var state = RetryState()
        let verdict = ProviderResponse.verdict(
            .fcm,
            status: 429,
            headers: ["Retry-After": "3"],
            body: FCMError.forStatus(429).response().body,
            now: now
        )
        #expect(
            verdict
                == .retryable(
                    reason: "429 QUOTA_EXCEEDED: Quota exceeded for sending messages.",
                    retryAfterMilliseconds: 3000
                )
        )
        state.attemptStarted()
        do {
            let got = state.attemptFinished(verdict, policy: policy, now: now)
            #expect(got == .retry(at: now.adding(seconds: 3)))
        }
    }

    @Test func retryAfterAsAnHTTPDateCountsFromNow() {
        let at = Instant(rfc3339: "2027-01-15T08:00:05.000Z")!
        let clock = Instant(rfc3339: "2027-01-15T08:00:00.000Z")!
        let verdict = ProviderResponse.verdict(
            .apns,
            status: 429,
            headers: ["retry-after": "Fri, 15 Jan 2027 08:00:05 GMT"],
            body: [],
            now: clock
        )
        #expect(
            verdict
                == .retryable(reason: "429 Too Many Requests", retryAfterMilliseconds: at.milliseconds(since: clock))
        )
    }

    @Test func retryAfterBeyondTheLimitGivesUpAtOnce() {
        var state = RetryState()
        state.attemptStarted()
        let decision = state.attemptFinished(
            .retryable(reason: "429 TooManyRequests", retryAfterMilliseconds: 3_600_000),
            policy: policy,
            now: now
        )
        #expect(
            decision == .finish(.failed(reason: "429 TooManyRequests (Retry-After 3600 s is beyond the 10 s limit)"))
        )
    }

    @Test func goneTokensAreUnregisteredAndOtherClientErrorsFailAtOnce() {
        #expect(
            ProviderResponse.verdict(
                .apns,
                status: 410,
                headers: [:],
                body: body(#"{"reason":"Unregistered","timestamp":1}"#),
                now: now
            )
                == .unregistered(reason: "410 Unregistered")
        )
        #expect(
            ProviderResponse.verdict(
                .fcm,
                status: 404,
                headers: [:],
                body: FCMError.unregistered.response().body,
                now: now
            )
                == .unregistered(reason: "404 UNREGISTERED: Requested entity was not found.")
        )
        #expect(
            ProviderResponse.verdict(.fcm, status: 404, headers: [:], body: body("not json"), now: now)
                == .rejected(reason: "404 Not Found")
        )
        #expect(
            ProviderResponse.verdict(
                .apns,
                status: 400,
                headers: [:],
                body: body(#"{"reason":"BadDeviceToken"}"#),
                now: now
            )
                == .rejected(reason: "400 BadDeviceToken")
        )
        var state = RetryState()
        state.attemptStarted()
        do {
            let got = state.attemptFinished(.rejected(reason: "400 BadDeviceToken"), policy: policy, now: now)
            #expect(got == .finish(.failed(reason: "400 BadDeviceToken")))
        }
        do {
            let got = state.attemptFinished(.delivered, policy: policy, now: now)
            #expect(got == .finish(.delivered))
        }
    }

    @Test func aSingleAttemptPolicyNeverRetries() {
        var state = RetryState()
        state.attemptStarted()
        do {
            let got = state.attemptFinished(
                .retryable(reason: "timed out", retryAfterMilliseconds: nil),
                policy: RetryPolicy(maxAttempts: 1),
                now: now
            )
            #expect(got == .finish(.failed(reason: "timed out (gave up after 1 attempt)")))
        }
    }
}
