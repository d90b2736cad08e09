import Observation

/// A typed capture slot (document or selfie). Setting ``handler`` declares support; the
/// host then routes the slot's action here, rejects overlapping requests as busy and
/// encodes the returned ``CaptureResult``.
@MainActor
@Observable
public final class CaptureCapability {
    /// The capability identifier, for example `"camera.document"`.
    public let id: String
    /// The action this slot answers, for example `"camera.document.capture"`.
    public let actionId: String
    /// Produces the result of one request. Setting it declares the capability supported.
    ///
    /// The handler starts on the main actor, where the host calls it (`nonisolated(nonsending)`), so
    /// main-actor UI code runs with no executor hop; move heavy work off the main actor yourself.
    public var handler: (nonisolated(nonsending) @Sendable (BridgeMessage) async -> CaptureResult)?
    /// Runtime switch; when `false` the slot reports unsupported even with a handler.
    public var isEnabled = true
    /// Why the slot is switched off (``isEnabled`` `false`), as the error its requests then get
    /// with status `unsupported`: the real cause, such as `CAMERA_UNAVAILABLE` and "No camera was
    /// found on this computer."; `nil` for the core's general `CAPABILITY_UNAVAILABLE` sentence.
    public var unavailableError: BridgeErrorPayload?
    /// The request being handled now, or `nil`. Drive capture UI from this.
    public internal(set) var activeRequest: BridgeMessage?
    /// Reported in `capability.query` while the slot is supported.
    public var permissionState: PermissionState = .notDetermined
    /// Version reported while supported; `"1.0"` when `nil`.
    public var version: String?
    /// Sees each result the handler returns for a request of the page still shown, just before the
    /// host answers with it; a result for a page that went away meanwhile is dropped unseen. For
    /// what an answer the page received teaches the app beyond the page; one observer per slot.
    @ObservationIgnored public var onAnswer: (@MainActor (CaptureResult) -> Void)?
    /// How many ``complete(_:)`` calls arrived with no request to complete.
    public private(set) var ignoredCompletionCount = 0

    @ObservationIgnored private var waiter: CheckedContinuation<CaptureResult, Never>?
    @ObservationIgnored private var bufferedResult: CaptureResult?
    @ObservationIgnored private var activeToken: UInt64 = 0
    @ObservationIgnored private var cancellationReason: String?

    public init(id: String, actionId: String, version: String? = nil) {
        self.id = id
        self.actionId = actionId
        self.version = version
    }

    /// `handler != nil && isEnabled`.
    public var isSupported: Bool {
        handler != nil && isEnabled
    }

    /// The slot's entry for `capability.query`: version and permission state while
    /// supported, `supported: false` with no version otherwise.
    public func buildCapabilityInfo() -> BridgeCapabilityInfo {
        guard isSupported else {
            return BridgeCapabilityInfo(supported: false)
        }
        return BridgeCapabilityInfo(
            supported: true, version: version ?? "1.0", permissionState: permissionState.rawValue)
    }

    /// Suspends until ``complete(_:)`` delivers the result of the active request.
    ///
    /// Returns at once with `.cancelled` when no request is active (for example after
    /// the page navigated away, with the reason given to the host).
    public func awaitCompletion() async -> CaptureResult {
        guard activeRequest != nil else {
            return .cancelled(reason: cancellationReason ?? "No \(id) capture request is active")
        }
        if let result = bufferedResult {
            bufferedResult = nil
            return result
        }
        if let previous = waiter {
            waiter = nil
            previous.resume(returning: .cancelled(reason: "Superseded by another awaitCompletion() call"))
        }
        return await withCheckedContinuation { continuation in
            waiter = continuation
        }
    }

    /// Finishes the active request with `result` (resumes ``awaitCompletion()``).
    /// Ignored, and counted, when no request is active.
    public func complete(_ result: CaptureResult) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: result)
        } else if activeRequest != nil, bufferedResult == nil {
            bufferedResult = result
        } else {
            ignoredCompletionCount += 1
        }
    }
}

extension CaptureCapability {
    /// Marks `request` active and returns a token that identifies it.
    func begin(_ request: BridgeMessage) -> UInt64 {
        activeToken &+= 1
        activeRequest = request
        bufferedResult = nil
        cancellationReason = nil
        return activeToken
    }

    /// Clears the active request if it is still the one `token` names.
    func finish(token: UInt64) {
        guard token == activeToken, activeRequest != nil else { return }
        activeRequest = nil
        bufferedResult = nil
    }

    /// Ends the active request at once: a waiting handler gets `.cancelled(reason:)`.
    func cancelActive(reason: String) {
        guard activeRequest != nil else { return }
        activeToken &+= 1
        activeRequest = nil
        cancellationReason = reason
        bufferedResult = nil
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: .cancelled(reason: reason))
        }
    }
}
