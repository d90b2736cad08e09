/// The capture window's default size for a monitor's work area (the screen minus panels and docks).
///
/// The window prefers 960x720, shrinks to fit smaller work areas with a margin, and is never larger than
/// the work area; the preview takes whatever height is left and scales the picture to fit.
enum CaptureWindowSizing {
    /// The size asked for on a large screen.
    static let preferred = (width: 960, height: 720)
    /// The smallest size the layout is built for (the widgets' minimum requests add up to less than this).
    static let minimum = (width: 480, height: 400)
    /// Space kept free around the window on each side, so it does not cover its journey window completely.
    static let margin = 24

    /// The default size for a work area of `width` x `height` pixels.
    static func defaultSize(workAreaWidth width: Int, workAreaHeight height: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return preferred }
        let fittingWidth = min(preferred.width, width - 2 * margin)
        let fittingHeight = min(preferred.height, height - 2 * margin)
        return (
            min(width, max(minimum.width, fittingWidth)),
            min(height, max(minimum.height, fittingHeight))
        )
    }
}
