import CWebKitGTK
import FoundationEssentials
import GBGBridgeLocalization
import GBGBridgeToolkit

#if canImport(Glibc)
    import Glibc
#endif

/// One download the page started, and what the window did with it.
public struct JourneyDownload: Sendable, Equatable {
    /// What became of the download.
    public enum Outcome: Sendable, Equatable {
        /// Nothing was written: the window has no ``BridgeJourneyWindow/downloadsDirectory``.
        case refused
        /// Written in full to `path`, a new file in the downloads directory.
        case saved(path: String, bytes: UInt64)
        /// Started but not finished; nothing of it is left on disk.
        case failed(reason: String)
    }

    /// The address the download came from (a `blob:`, `data:` or `http(s):` URL).
    public let url: String
    /// The file name the page or the server suggested (empty when there was none yet).
    public let suggestedFilename: String
    public let outcome: Outcome
}

extension BridgeJourneyWindow {
    /// The folder where downloads the page starts are saved, or `nil` (the default) to refuse
    /// them all: nothing the page downloads is then written anywhere.
    ///
    /// Every way a page can download is covered: `<a download>` (with or without a click, of a
    /// `blob:` or `data:` URL), a `Content-Disposition: attachment` or unshowable response, in the
    /// top document or any frame. A saved download gets a new file: the suggested name made safe
    /// (no folders, no leading dot), with " (1)", " (2)"... added before the extension when the
    /// name is taken, so no existing file is ever overwritten or deleted.
    public var downloadsDirectory: String? {
        get { downloadState.directory }
        set { downloadState.directory = newValue }
    }

    /// Called once for every download the page started: refused, saved or failed.
    public var onDownload: (@MainActor (JourneyDownload) -> Void)? {
        get { downloadState.onDownload }
        set { downloadState.onDownload = newValue }
    }

    /// Decides every download of this window's web view (WebKit otherwise saves it silently in
    /// the user's Downloads folder, or `$HOME`).
    func installDownloadPolicy(_ webView: UnsafeMutablePointer<WebKitWebView>) {
        guard let context = webkit_web_view_get_context(webView) else { return }
        signals.connect(
            UnsafeMutableRawPointer(context), "download-started", trampoline: Signal.withPointer,
            closure: { [unowned self] (download: gpointer?) in
                guard let download else { return }
                downloadStarted(download.assumingMemoryBound(to: WebKitDownload.self))
            } as Signal.WithPointer)
    }

    private func downloadStarted(_ download: UnsafeMutablePointer<WebKitDownload>) {
        // A context shared with other views: their downloads are theirs to decide.
        if let owner = webkit_download_get_web_view(download), owner != webView { return }
        let request = webkit_download_get_request(download)
        let tracker = DownloadTracker(
            url: request.flatMap { webkit_uri_request_get_uri($0) }.map { String(cString: $0) } ?? "")
        let instance = UnsafeMutableRawPointer(download)
        connectUntracked(
            instance, "decide-destination", trampoline: Signal.event,
            closure: { [weak self] (name: gpointer?) in
                let suggested = name.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? ""
                guard let self else {
                    webkit_download_cancel(download)
                    return true
                }
                decideDestination(of: download, suggestedFilename: suggested, tracker: tracker)
                return true
            } as Signal.Event)
        connectUntracked(
            instance, "failed", trampoline: Signal.withPointer,
            closure: { [weak self] (error: gpointer?) in
                let message = GErrorText.message(of: error?.assumingMemoryBound(to: GError.self), or: "")
                self?.downloadFailed(tracker, reason: message)
            } as Signal.WithPointer)
        connectUntracked(
            instance, "finished", trampoline: Signal.plain,
            closure: { [weak self] in
                self?.downloadFinished(tracker, bytes: UInt64(webkit_download_get_received_data_length(download)))
            } as Signal.Plain)
    }

    private func decideDestination(
        of download: UnsafeMutablePointer<WebKitDownload>, suggestedFilename: String, tracker: DownloadTracker
    ) {
        tracker.suggestedFilename = suggestedFilename
        guard let directory = downloadsDirectory else {
            webkit_download_cancel(download)
            report(tracker, .refused)
            return
        }
        do {
            let path = try DownloadFolder.reserveFile(in: directory, suggestedFilename: suggestedFilename)
            tracker.reservedPath = path
            // The file is ours (just created, empty): WebKit may replace it. With overwriting off,
            // WebKit would delete whatever file it found at the name when it gave up.
            webkit_download_set_allow_overwrite(download, 1)
            guard let uri = g_filename_to_uri(path, nil, nil) else {
                webkit_download_cancel(download)
                return
            }
            defer { g_free(uri) }
            webkit_download_set_destination(download, uri)
        } catch {
            webkit_download_cancel(download)
            report(tracker, .failed(reason: error.description))
        }
    }

    private func downloadFailed(_ tracker: DownloadTracker, reason: String) {
        if let path = tracker.reservedPath { DownloadFolder.removeIfStillEmpty(path) }
        report(tracker, .failed(reason: reason))
    }

    private func downloadFinished(_ tracker: DownloadTracker, bytes: UInt64) {
        guard let path = tracker.reservedPath else {
            // Ended before a destination was decided: nothing was written.
            report(tracker, downloadsDirectory == nil ? .refused : .failed(reason: ""))
            return
        }
        report(tracker, .saved(path: path, bytes: bytes))
    }

    /// Reports a download once: the first outcome wins ("failed" comes before "finished").
    private func report(_ tracker: DownloadTracker, _ outcome: JourneyDownload.Outcome) {
        guard !tracker.isReported else { return }
        tracker.isReported = true
        onDownload?(JourneyDownload(url: tracker.url, suggestedFilename: tracker.suggestedFilename, outcome: outcome))
    }
}

/// The window's download settings.
struct DownloadState {
    var directory: String?
    var onDownload: (@MainActor (JourneyDownload) -> Void)?
}

/// What is known about one download while it runs.
@MainActor
final class DownloadTracker {
    let url: String
    var suggestedFilename = ""
    var reservedPath: String?
    var isReported = false

    init(url: String) { self.url = url }
}

/// New files in the downloads folder, never an existing one.
enum DownloadFolder {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The longest name kept, in UTF-8 bytes, leaving room for " (NNN)" and WebKit's ".wkdownload".
    static let longestName = 200

    /// `suggested` made into a plain file name: its last path component, without control
    /// characters or leading dots (no hidden files), at most ``longestName`` bytes; "download"
    /// when nothing is left.
    static func safeName(_ suggested: String) -> String {
        let last = suggested.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var name = String(String.UnicodeScalarView(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        while name.first == "." || name.first == " " { name.removeFirst() }
        while name.last == " " { name.removeLast() }
        while name.utf8.count > longestName { name.removeLast() }
        return name.isEmpty ? "download" : name
    }

    /// Creates a new, empty file for a download in `directory` (exclusively, so an existing
    /// file or link is never taken over) and returns its path: the safe name, or the first of
    /// "name (1).ext", "name (2).ext"... that is free, along with WebKit's "<name>.wkdownload".
    static func reserveFile(in directory: String, suggestedFilename: String) throws(Failure) -> String {
        let name = safeName(suggestedFilename)
        let (stem, suffix) = split(name)
        for attempt in 0..<1000 {
            let candidate = attempt == 0 ? name : "\(stem) (\(attempt))\(suffix)"
            let path = directory.hasSuffix("/") ? directory + candidate : directory + "/" + candidate
            var info = stat()
            if lstat(path + ".wkdownload", &info) == 0 { continue }
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                close(descriptor)
                return path
            }
            guard errno == EEXIST else {
                throw Failure(description: "\(path): \(String(cString: strerror(errno)))")
            }
        }
        throw Failure(
            description: tr("{folder} has no free name left for {name}", ["folder": directory, "name": name]))
    }

    /// Removes the file reserved for a download that failed, if it is still the empty file made for it.
    static func removeIfStillEmpty(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size == 0 else { return }
        unlink(path)
    }

    /// "report.pdf" → ("report", ".pdf"); a name without an extension keeps it all as the stem.
    private static func split(_ name: String) -> (stem: String, suffix: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}
