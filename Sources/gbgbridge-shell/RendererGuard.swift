import GBGBridgeLocalization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps the journey window from staying blank on graphics drivers that WebKitGTK's DMA-BUF
/// renderer does not get along with: with NVIDIA's proprietary driver it can show an empty
/// window (most often under Wayland), so there the shell turns that renderer off, unless the
/// user has chosen themselves with `WEBKIT_DISABLE_DMABUF_RENDERER` (any value, `0` included).
enum RendererGuard {
    /// The variable WebKitGTK reads when its first web view is created (in this process).
    static let variable = "WEBKIT_DISABLE_DMABUF_RENDERER"
    /// Present while NVIDIA's proprietary kernel driver is loaded.
    static let nvidiaDriverFile = "/proc/driver/nvidia/version"

    /// Sets `WEBKIT_DISABLE_DMABUF_RENDERER=1`, with a note on stderr, when the NVIDIA driver is
    /// loaded and the variable is not set. Call before WebKit starts (before the first web view).
    static func apply() {
        guard getenv(variable) == nil, access(nvidiaDriverFile, F_OK) == 0 else { return }
        setenv(variable, "1", 1)
        ShellOutput.note(
            tr(
                "NVIDIA's proprietary driver is loaded: WebKit's DMA-BUF renderer is turned off ({variable}=1), as it can leave the window blank with that driver; set {variable}=0 to keep it",
                ["variable": variable]))
    }
}
