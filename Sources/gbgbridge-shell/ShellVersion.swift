/// The version of `gbgbridge-shell` (also the default `--host-version`).
enum ShellVersion {
    static let current = "0.1.0"
}
