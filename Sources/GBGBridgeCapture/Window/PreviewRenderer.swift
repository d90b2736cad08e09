import CWebKitGTK
import GBGBridgeToolkit
import VideoFrame

/// Draws preview frames: converts an ``RGBFrame`` into a cairo image once per frame, then paints it scaled
/// to fit (mirrored for selfies) with the guide overlay. Has no widget of its own, so the benchmark can
/// render into an offscreen surface exactly as the window does.
public final class PreviewRenderer {
    /// The guide and mirroring this renderer applies.
    public let kind: CaptureKind
    /// The frame last given, as the cairo surface painted.
    private let picture = FrameSurface()
    private var frameWidth: Int { picture.width }
    private var frameHeight: Int { picture.height }
    /// Text shown centred on the preview area when there is no image (e.g. "Starting the camera…").
    public var placeholder: String?
    /// When set, the image is a still photo: it gets a coloured border and this text as a tag in its
    /// top-left corner, so nobody takes it for live video.
    public var stillBadge: String?
    /// When set, drawn large in the middle of the picture (the selfie countdown).
    public var countdown: Int?
    /// When set, document auto-capture is counting: the guide turns green and a thick green line traces it
    /// this share (0...1) of the way round.
    public var autoCaptureProgress: Double?
    /// When true, the subject is right in the guide (a selfie's face): the outline turns green.
    public var guideRight = false

    /// A renderer with no image yet.
    public init(kind: CaptureKind) {
        self.kind = kind
    }

    /// Converts `frame` (packed RGB) into the cairo xRGB surface used for drawing, reusing it when the size matches.
    public func update(with frame: RGBFrame) {
        picture.update(with: frame)
    }

    /// Drops the current image (the preview shows the background only).
    public func clear() {
        picture.clear()
    }

    /// Paints background, image (scaled to fit, centred) and guide into an area of `width` x `height`.
    public func draw(on cr: OpaquePointer, width: Double, height: Double) {
        cairo_set_source_rgb(cr, 0.08, 0.08, 0.09)
        cairo_paint(cr)
        guard let surface = picture.surface else {
            if let placeholder { drawCentred(placeholder, on: cr, width: width, height: height) }
            return
        }
        let scale = min(width / Double(frameWidth), height / Double(frameHeight))
        let imageWidth = Double(frameWidth) * scale
        let imageHeight = Double(frameHeight) * scale
        let left = (width - imageWidth) / 2
        let top = (height - imageHeight) / 2

        cairo_save(cr)
        cairo_rectangle(cr, left, top, imageWidth, imageHeight)
        cairo_clip(cr)
        if kind.mirrorsPreview {
            cairo_translate(cr, left + imageWidth, top)
            cairo_scale(cr, -scale, scale)
        } else {
            cairo_translate(cr, left, top)
            cairo_scale(cr, scale, scale)
        }
        cairo_set_source_surface(cr, surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
        cairo_paint(cr)
        cairo_restore(cr)

        drawGuide(on: cr, left: left, top: top, width: imageWidth, height: imageHeight)
        if let stillBadge {
            drawStillFrame(stillBadge, on: cr, left: left, top: top, width: imageWidth, height: imageHeight)
        }
        if let countdown {
            drawCountdown(countdown, on: cr, width: width, height: height)
        }
    }

    /// The still-photo marking: a thick amber border around the picture and a tag with `text`.
    private func drawStillFrame(
        _ text: String, on cr: OpaquePointer, left: Double, top: Double, width: Double, height: Double
    ) {
        let border = 6.0
        cairo_save(cr)
        cairo_set_source_rgb(cr, 0.96, 0.76, 0.07)
        cairo_set_line_width(cr, border)
        cairo_rectangle(cr, left + border / 2, top + border / 2, width - border, height - border)
        cairo_stroke(cr)
        let layout = textLayout(cr, text, size: max(11, min(16, width / 40)), bold: true)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        var logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, nil, &logical)
        let padding = 6.0
        let tagLeft = left + border + 8
        let tagTop = top + border + 8
        roundedRectangle(
            cr, x: tagLeft, y: tagTop, width: Double(logical.width) + 2 * padding,
            height: Double(logical.height) + 2 * padding, radius: 4)
        cairo_set_source_rgb(cr, 0.96, 0.76, 0.07)
        cairo_fill(cr)
        cairo_move_to(cr, tagLeft + padding, tagTop + padding)
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1)
        pango_cairo_show_layout(cr, layout)
        cairo_restore(cr)
    }

    /// A big countdown number on a dark disc in the middle of the area.
    private func drawCountdown(_ number: Int, on cr: OpaquePointer, width: Double, height: Double) {
        let radius = max(40, min(width, height) * 0.18)
        cairo_save(cr)
        cairo_arc(cr, width / 2, height / 2, radius, 0, 2 * Double.pi)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.6)
        cairo_fill(cr)
        let layout = textLayout(cr, String(number), size: radius * 1.1, bold: true)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        var ink = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, nil)
        cairo_move_to(
            cr, width / 2 - Double(ink.x) - Double(ink.width) / 2, height / 2 - Double(ink.y) - Double(ink.height) / 2)
        cairo_set_source_rgb(cr, 1, 1, 1)
        pango_cairo_show_layout(cr, layout)
        cairo_restore(cr)
    }

    /// A Pango layout for `text` in the UI's sans font at `size` pixels (Pango handles any script).
    private func textLayout(_ cr: OpaquePointer, _ text: String, size: Double, bold: Bool) -> OpaquePointer {
        let layout = pango_cairo_create_layout(cr)!
        let font = pango_font_description_from_string("Sans")!
        pango_font_description_set_absolute_size(font, size * Double(PANGO_SCALE))
        if bold { pango_font_description_set_weight(font, PANGO_WEIGHT_BOLD) }
        pango_layout_set_font_description(layout, font)
        pango_font_description_free(font)
        pango_layout_set_text(layout, text, -1)
        return layout
    }

    /// The guide: the area outside it is dimmed and its outline drawn in white (green, traced round by the
    /// auto-capture progress, while auto-capture counts).
    private func drawGuide(on cr: OpaquePointer, left: Double, top: Double, width: Double, height: Double) {
        cairo_save(cr)
        cairo_rectangle(cr, left, top, width, height)
        appendGuidePath(cr, left: left, top: top, width: width, height: height)
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.45)
        cairo_fill(cr)
        appendGuidePath(cr, left: left, top: top, width: width, height: height)
        if let progress = autoCaptureProgress {
            cairo_set_source_rgba(cr, 0.2, 0.8, 0.35, 0.95)
            cairo_set_line_width(cr, 3)
            cairo_stroke(cr)
            if progress > 0 {
                let guide = GuideGeometry(kind: kind, width: width, height: height)
                let perimeter =
                    guide.isOval
                    ? Double.pi * (guide.width + guide.height) / 2
                    : 2 * (guide.width + guide.height) - 8 * guide.cornerRadius + 2 * Double.pi * guide.cornerRadius
                var dashes = [perimeter * min(1, progress), perimeter]
                appendGuidePath(cr, left: left, top: top, width: width, height: height)
                cairo_set_dash(cr, &dashes, 2, 0)
                cairo_set_line_width(cr, 8)
                cairo_stroke(cr)
            }
        } else if guideRight {
            cairo_set_source_rgba(cr, 0.2, 0.8, 0.35, 0.95)
            cairo_set_line_width(cr, 4)
            cairo_stroke(cr)
        } else {
            cairo_set_source_rgba(cr, 1, 1, 1, 0.9)
            cairo_set_line_width(cr, 3)
            cairo_stroke(cr)
        }
        cairo_restore(cr)
    }

    /// Adds the guide's outline (``GuideGeometry``: card or face oval) to the current path.
    private func appendGuidePath(_ cr: OpaquePointer, left: Double, top: Double, width: Double, height: Double) {
        let guide = GuideGeometry(kind: kind, width: width, height: height)
        if guide.isOval {
            cairo_save(cr)
            cairo_translate(cr, left + guide.x + guide.width / 2, top + guide.y + guide.height / 2)
            cairo_scale(cr, guide.width / 2, guide.height / 2)
            cairo_new_sub_path(cr)
            cairo_arc(cr, 0, 0, 1, 0, 2 * Double.pi)
            cairo_restore(cr)
        } else {
            roundedRectangle(
                cr, x: left + guide.x, y: top + guide.y, width: guide.width, height: guide.height,
                radius: guide.cornerRadius)
        }
    }

    private func drawCentred(_ text: String, on cr: OpaquePointer, width: Double, height: Double) {
        cairo_save(cr)
        let layout = textLayout(cr, text, size: max(14, min(26, width / 30)), bold: true)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        pango_layout_set_width(layout, Int32(max(1, width - 32)) * PANGO_SCALE)
        pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
        var logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, nil, &logical)
        cairo_move_to(cr, 16, (height - Double(logical.height)) / 2)
        cairo_set_source_rgba(cr, 1, 1, 1, 0.9)
        pango_cairo_show_layout(cr, layout)
        cairo_restore(cr)
    }

    private func roundedRectangle(
        _ cr: OpaquePointer, x: Double, y: Double, width: Double, height: Double, radius: Double
    ) {
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + width - radius, y + radius, radius, -Double.pi / 2, 0)
        cairo_arc(cr, x + width - radius, y + height - radius, radius, 0, Double.pi / 2)
        cairo_arc(cr, x + radius, y + height - radius, radius, Double.pi / 2, Double.pi)
        cairo_arc(cr, x + radius, y + radius, radius, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(cr)
    }
}
