/// Waits, yielding to other tasks, until `condition` holds or about `seconds` pass.
/// Returns whether the condition held. Meant for tests that wait on work the host
/// schedules itself; it measures nothing.
@MainActor
public func eventually(within seconds: Double = 5, _ condition: @MainActor () -> Bool) async -> Bool {
    let attempts = Int(seconds * 1000)
    for _ in 0..<attempts {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return condition()
}
