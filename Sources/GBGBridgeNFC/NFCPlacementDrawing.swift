import CWebKitGTK

#if canImport(Glibc)
    import Glibc
#endif

/// The chip-reading window's picture, drawn with cairo: a reader seen from above with the document
/// laid on it (a passport, a card, or both side by side), or a check mark once the chip is read.
/// Lines and shapes take the theme's foreground colour, the document its base colour, and the
/// "place here" outline and arrows its selection colour, so the picture follows light, dark and
/// high-contrast themes.
enum NFCPlacementPicture: Equatable {
    /// Where to lay the document.
    case placement(NFCPlacementSuggestion, Style)
    /// The read is done.
    case done

    /// How a placement is drawn.
    enum Style: Equatable {
        /// Before the read: the document outlined in the accent colour, with the move to make (turn
        /// it over, slide it up) as an arrow.
        case suggest
        /// While the chip is read: outlined, no arrows (keep it still).
        case hold
        /// Once it may be taken off (the signature check): faint, no outline, no arrows.
        case dimmed
    }

    /// The colours the picture is drawn in.
    struct Colours {
        var foreground: GdkRGBA
        var base: GdkRGBA
        var accent: GdkRGBA
        var success: GdkRGBA

        /// Colours for light themes (and tests without a widget).
        static let light = Colours(
            foreground: GdkRGBA(red: 0.18, green: 0.20, blue: 0.21, alpha: 1),
            base: GdkRGBA(red: 1, green: 1, blue: 1, alpha: 1),
            accent: GdkRGBA(red: 0.21, green: 0.52, blue: 0.89, alpha: 1),
            success: GdkRGBA(red: 0.15, green: 0.55, blue: 0.27, alpha: 1))

        /// The colours of `widget`'s style context (theme colours by their GTK 3 names).
        @MainActor
        static func of(_ widget: UnsafeMutablePointer<GtkWidget>) -> Colours {
            guard let context = gtk_widget_get_style_context(widget) else { return .light }
            var colours = Colours.light
            gtk_style_context_get_color(context, gtk_widget_get_state_flags(widget), &colours.foreground)
            func lookup(_ name: String, into colour: inout GdkRGBA) {
                var found = GdkRGBA()
                if gtk_style_context_lookup_color(context, name, &found) != 0 { colour = found }
            }
            lookup("theme_base_color", into: &colours.base)
            lookup("theme_selected_bg_color", into: &colours.accent)
            // Adwaita names it success_color; themes without it get the foreground (high contrast).
            colours.success = colours.foreground
            lookup("success_color", into: &colours.success)
            colours.success = readable(colours.success, on: colours.base)
            colours.accent = readable(colours.accent, on: colours.base)
            return colours
        }

        /// `colour`, darkened on a light background or lightened on a dark one until it stands out
        /// at 3:1 at least (WCAG's contrast for graphics); Adwaita's light green does not.
        static func readable(_ colour: GdkRGBA, on background: GdkRGBA) -> GdkRGBA {
            func luminance(_ colour: GdkRGBA) -> Double {
                func linear(_ value: Double) -> Double {
                    value <= 0.03928 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
                }
                return 0.2126 * linear(colour.red) + 0.7152 * linear(colour.green) + 0.0722 * linear(colour.blue)
            }
            func contrast(_ one: GdkRGBA, _ other: GdkRGBA) -> Double {
                let (a, b) = (luminance(one), luminance(other))
                return (max(a, b) + 0.05) / (min(a, b) + 0.05)
            }
            let lightBackground = luminance(background) > 0.4
            var result = colour
            for _ in 0..<12 where contrast(result, background) < 3 {
                if lightBackground {
                    result.red *= 0.85
                    result.green *= 0.85
                    result.blue *= 0.85
                } else {
                    result.red += (1 - result.red) * 0.2
                    result.green += (1 - result.green) * 0.2
                    result.blue += (1 - result.blue) * 0.2
                }
            }
            return result
        }
    }

    /// The size of one panel in picture units; a suggestion for two documents is two panels wide.
    static let panelWidth = 200.0
    static let panelHeight = 150.0

    /// Draws the picture centred in `width` x `height`, scaled to fit.
    func draw(on cr: OpaquePointer, width: Double, height: Double, colours: Colours) {
        let panels: Int
        switch self {
        case .placement(let suggestion, _): panels = max(1, suggestion.placements.count)
        case .done: panels = 1
        }
        let contentWidth = Self.panelWidth * Double(panels)
        let scale = min(width / contentWidth, height / Self.panelHeight)
        guard scale > 0 else { return }
        cairo_save(cr)
        cairo_translate(cr, (width - contentWidth * scale) / 2, (height - Self.panelHeight * scale) / 2)
        cairo_scale(cr, scale, scale)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        let pen = Pen(cr: cr, colours: colours)
        switch self {
        case .placement(let suggestion, let style):
            let dimmed = style == .dimmed
            for (index, placement) in suggestion.placements.enumerated() {
                cairo_save(cr)
                cairo_translate(cr, Self.panelWidth * Double(index), 0)
                if dimmed { cairo_push_group(cr) }
                pen.draw(placement, highlighted: !dimmed, moving: style == .suggest)
                if dimmed {
                    cairo_pop_group_to_source(cr)
                    cairo_paint_with_alpha(cr, 0.45)
                }
                cairo_restore(cr)
            }
        case .done:
            pen.drawCheckMark()
        }
        cairo_restore(cr)
    }
}

/// Cairo drawing in panel units (200 x 150, the reader in the middle).
private struct Pen {
    let cr: OpaquePointer
    let colours: NFCPlacementPicture.Colours

    // The reader: a flat box with its cable leaving at the top.
    static let reader = (x: 40.0, y: 42.0, width: 120.0, height: 80.0)
    static let centre = (x: 100.0, y: 82.0)
    static let passport = (width: 63.0, height: 90.0)
    static let card = (width: 86.0, height: 54.0)

    func colour(_ colour: GdkRGBA, alpha: Double = 1) {
        cairo_set_source_rgba(cr, colour.red, colour.green, colour.blue, colour.alpha * alpha)
    }

    func roundedRectangle(_ x: Double, _ y: Double, _ width: Double, _ height: Double, radius: Double) {
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + width - radius, y + radius, radius, -Double.pi / 2, 0)
        cairo_arc(cr, x + width - radius, y + height - radius, radius, 0, Double.pi / 2)
        cairo_arc(cr, x + radius, y + height - radius, radius, Double.pi / 2, Double.pi)
        cairo_arc(cr, x + radius, y + radius, radius, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(cr)
    }

    func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) {
        cairo_move_to(cr, x1, y1)
        cairo_line_to(cr, x2, y2)
    }

    func dashed(_ on: Bool) {
        if on {
            var dashes: [Double] = [5, 4]
            cairo_set_dash(cr, &dashes, 2, 0)
        } else {
            cairo_set_dash(cr, nil, 0, 0)
        }
    }

    /// Draws `placement`: the document outlined in the accent colour when `highlighted`, with the
    /// move to make when `moving`.
    func draw(_ placement: NFCPlacement, highlighted: Bool, moving: Bool) {
        drawReader()
        let centre = Self.centre
        switch placement {
        case .passportFrontCoverDown:
            let size = Self.passport
            let x = centre.x - size.width / 2
            let y = centre.y - size.height / 2
            drawDocumentShape(x, y, size.width, size.height, radius: 4, highlighted: highlighted)
            // Seen from above: the back cover, its spine on the right.
            colour(colours.foreground, alpha: 0.35)
            cairo_set_line_width(cr, 1.5)
            line(x + size.width - 6, y + 3, x + size.width - 6, y + size.height - 3)
            cairo_stroke(cr)
            // The reader's symbol shows through the plain back cover: the front cover faces it.
            drawContactlessSymbol(alpha: 0.3)
            if moving { drawTurnArrow(highlighted: highlighted, down: true) }
        case .passportBackCoverDown:
            let size = Self.passport
            let x = centre.x - size.width / 2
            let y = centre.y - size.height / 2
            drawDocumentShape(x, y, size.width, size.height, radius: 4, highlighted: highlighted)
            drawFrontCover(x, y, size.width, size.height)
            if moving { drawTurnArrow(highlighted: highlighted, down: false) }
        case .passportOpenAtDataPage:
            let size = Self.passport
            let x = centre.x - size.width
            let y = centre.y - size.height / 2
            drawDocumentShape(x, y, size.width * 2, size.height, radius: 4, highlighted: highlighted)
            drawOpenPages(x, y, size.width, size.height)
            drawReaderOutlineThrough()
        case .cardInTheMiddle:
            let size = Self.card
            let x = centre.x - size.width / 2
            let y = centre.y - size.height / 2
            drawDocumentShape(x, y, size.width, size.height, radius: 5, highlighted: highlighted)
            drawCardFace(x, y, size.width, size.height)
        case .cardTowardsTopEdge:
            let size = Self.card
            let x = centre.x - size.width / 2
            let start = centre.y - size.height / 2
            let y = Self.reader.y - 14
            if moving {
                // Where it was: a dashed outline in the middle.
                dashed(true)
                colour(colours.foreground, alpha: 0.45)
                cairo_set_line_width(cr, 1.5)
                roundedRectangle(x, start, size.width, size.height, radius: 5)
                cairo_stroke(cr)
                dashed(false)
            }
            drawDocumentShape(x, y, size.width, size.height, radius: 5, highlighted: highlighted)
            drawCardFace(x, y, size.width, size.height)
            if moving {
                // Slowly up: an arrow from the old place to the new one, beside the card.
                drawArrow(
                    from: (x + size.width + 12, start + size.height - 4), to: (x + size.width + 12, y + 8))
            }
        }
    }

    /// The reader: a flat box with the contactless symbol in its middle.
    func drawReader() {
        let reader = Self.reader
        cairo_set_line_width(cr, 2)
        roundedRectangle(reader.x, reader.y, reader.width, reader.height, radius: 12)
        colour(colours.foreground, alpha: 0.10)
        cairo_fill_preserve(cr)
        colour(colours.foreground, alpha: 0.75)
        cairo_stroke(cr)
        drawContactlessSymbol(alpha: 0.75)
    }

    /// Three arcs, as printed on contactless readers.
    func drawContactlessSymbol(alpha: Double) {
        let centre = Self.centre
        cairo_set_line_width(cr, 3)
        colour(colours.foreground, alpha: alpha)
        for radius in [8.0, 16.0, 24.0] {
            cairo_new_sub_path(cr)
            cairo_arc(cr, centre.x - 12, centre.y, radius, -Double.pi / 4, Double.pi / 4)
        }
        cairo_stroke(cr)
    }

    /// Where the reader is under a document larger than it: its outline, dashed and faint.
    func drawReaderOutlineThrough() {
        let reader = Self.reader
        cairo_save(cr)
        dashed(true)
        cairo_set_line_width(cr, 1.5)
        colour(colours.foreground, alpha: 0.4)
        roundedRectangle(reader.x, reader.y, reader.width, reader.height, radius: 12)
        cairo_stroke(cr)
        cairo_restore(cr)
    }

    /// The document's outline and fill; highlighted, a wide soft band in the accent colour around
    /// it marks "place it here".
    func drawDocumentShape(
        _ x: Double, _ y: Double, _ width: Double, _ height: Double, radius: Double, highlighted: Bool
    ) {
        if highlighted {
            roundedRectangle(x, y, width, height, radius: radius)
            colour(colours.accent, alpha: 0.3)
            cairo_set_line_width(cr, 9)
            cairo_stroke(cr)
        }
        roundedRectangle(x, y, width, height, radius: radius)
        colour(colours.base)
        cairo_fill_preserve(cr)
        colour(highlighted ? colours.accent : colours.foreground)
        cairo_set_line_width(cr, 2.5)
        cairo_stroke(cr)
    }

    /// A passport's front cover: the emblem, the title, and the chip symbol at the bottom.
    func drawFrontCover(_ x: Double, _ y: Double, _ width: Double, _ height: Double) {
        let middle = x + width / 2
        colour(colours.foreground, alpha: 0.55)
        cairo_set_line_width(cr, 1.5)
        cairo_new_sub_path(cr)
        cairo_arc(cr, middle, y + 30, 10, 0, 2 * Double.pi)
        cairo_stroke(cr)
        cairo_set_line_width(cr, 2)
        line(middle - 16, y + 12, middle + 16, y + 12)
        line(middle - 12, y + 50, middle + 12, y + 50)
        cairo_stroke(cr)
        drawChipSymbol(centreX: middle, centreY: y + height - 18)
    }

    /// The ICAO chip symbol: a circle between two lines in a rectangle.
    func drawChipSymbol(centreX: Double, centreY: Double) {
        colour(colours.foreground, alpha: 0.7)
        cairo_set_line_width(cr, 1.5)
        roundedRectangle(centreX - 9, centreY - 6, 18, 12, radius: 1.5)
        cairo_stroke(cr)
        line(centreX - 9, centreY - 2.5, centreX + 9, centreY - 2.5)
        line(centreX - 9, centreY + 2.5, centreX + 9, centreY + 2.5)
        cairo_stroke(cr)
        cairo_new_sub_path(cr)
        cairo_arc(cr, centreX, centreY, 3, 0, 2 * Double.pi)
        colour(colours.base)
        cairo_fill_preserve(cr)
        colour(colours.foreground, alpha: 0.7)
        cairo_stroke(cr)
    }

    /// An open passport: a visa page on the left, the photo page on the right with its photo,
    /// text lines and the two MRZ lines.
    func drawOpenPages(_ x: Double, _ y: Double, _ pageWidth: Double, _ height: Double) {
        colour(colours.foreground, alpha: 0.5)
        cairo_set_line_width(cr, 1.5)
        line(x + pageWidth, y + 2, x + pageWidth, y + height - 2)
        cairo_stroke(cr)
        let page = x + pageWidth
        colour(colours.foreground, alpha: 0.55)
        cairo_set_line_width(cr, 1.5)
        cairo_rectangle(cr, page + 6, y + 10, 18, 23)
        cairo_stroke(cr)
        // A head and shoulders in the photo.
        cairo_new_sub_path(cr)
        cairo_arc(cr, page + 15, y + 18, 4, 0, 2 * Double.pi)
        cairo_move_to(cr, page + 8, y + 33)
        cairo_curve_to(cr, page + 9, y + 24, page + 21, y + 24, page + 22, y + 33)
        cairo_stroke(cr)
        colour(colours.foreground, alpha: 0.35)
        cairo_set_line_width(cr, 2)
        for row in 0..<4 {
            line(page + 29, y + 13 + Double(row) * 6, page + pageWidth - 8, y + 13 + Double(row) * 6)
        }
        for row in 0..<2 {
            line(page + 6, y + 44 + Double(row) * 6, page + pageWidth - 8, y + 44 + Double(row) * 6)
        }
        cairo_stroke(cr)
        colour(colours.foreground, alpha: 0.55)
        cairo_set_line_width(cr, 2.5)
        var dashes: [Double] = [2, 1.6]
        cairo_set_dash(cr, &dashes, 2, 0)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
        for row in 0..<2 {
            line(page + 5, y + height - 18 + Double(row) * 7, page + pageWidth - 5, y + height - 18 + Double(row) * 7)
        }
        cairo_stroke(cr)
        dashed(false)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        // The visa page: a faint stamp.
        colour(colours.foreground, alpha: 0.2)
        cairo_set_line_width(cr, 1.5)
        roundedRectangle(x + 14, y + 22, 32, 20, radius: 4)
        cairo_stroke(cr)
    }

    /// An identity card's front: the photo on the left, text lines on the right.
    func drawCardFace(_ x: Double, _ y: Double, _ width: Double, _ height: Double) {
        colour(colours.foreground, alpha: 0.55)
        cairo_set_line_width(cr, 1.5)
        cairo_rectangle(cr, x + 7, y + 12, 20, 26)
        cairo_stroke(cr)
        cairo_new_sub_path(cr)
        cairo_arc(cr, x + 17, y + 21, 4.5, 0, 2 * Double.pi)
        cairo_move_to(cr, x + 9, y + 38)
        cairo_curve_to(cr, x + 10, y + 28, x + 24, y + 28, x + 25, y + 38)
        cairo_stroke(cr)
        colour(colours.foreground, alpha: 0.35)
        cairo_set_line_width(cr, 2)
        line(x + 8, y + 6, x + width - 8, y + 6)
        for row in 0..<4 {
            line(x + 33, y + 15 + Double(row) * 7, x + width - 10 - Double(row % 2) * 12, y + 15 + Double(row) * 7)
        }
        cairo_stroke(cr)
        drawChipSymbol(centreX: x + width - 18, centreY: y + height - 10)
    }

    /// A half-circle arrow beside the passport: turn it over. `down` curls towards the reader
    /// (front cover down), otherwise away from it.
    func drawTurnArrow(highlighted: Bool, down: Bool) {
        let centreX = Self.centre.x + Self.passport.width / 2 + 17
        let centreY = Self.centre.y
        let radius = 17.0
        colour(highlighted ? colours.accent : colours.foreground)
        cairo_set_line_width(cr, 3)
        let start = -Double.pi * 0.6
        let end = Double.pi * 0.6
        cairo_new_sub_path(cr)
        cairo_arc(cr, centreX, centreY, radius, start, end)
        cairo_stroke(cr)
        // The head at the lower end (turning down) or the upper one.
        let angle = down ? end : start
        let tip = (x: centreX + radius * cos(angle), y: centreY + radius * sin(angle))
        let direction = down ? angle + Double.pi / 2 : angle - Double.pi / 2
        drawArrowHead(at: tip, direction: direction)
    }

    /// A straight arrow in the accent colour.
    func drawArrow(from start: (Double, Double), to end: (Double, Double)) {
        colour(colours.accent)
        cairo_set_line_width(cr, 3)
        line(start.0, start.1, end.0, end.1)
        cairo_stroke(cr)
        drawArrowHead(at: end, direction: atan2(end.1 - start.1, end.0 - start.0))
    }

    func drawArrowHead(at tip: (x: Double, y: Double), direction: Double) {
        let length = 9.0
        let spread = 0.5
        cairo_move_to(cr, tip.x, tip.y)
        cairo_line_to(
            cr, tip.x - length * cos(direction - spread), tip.y - length * sin(direction - spread))
        cairo_line_to(
            cr, tip.x - length * cos(direction + spread), tip.y - length * sin(direction + spread))
        cairo_close_path(cr)
        cairo_fill(cr)
    }

    /// A check mark in a circle.
    func drawCheckMark() {
        let centre = (x: 100.0, y: 75.0)
        cairo_new_sub_path(cr)
        cairo_arc(cr, centre.x, centre.y, 48, 0, 2 * Double.pi)
        colour(colours.success, alpha: 0.15)
        cairo_fill_preserve(cr)
        colour(colours.success)
        cairo_set_line_width(cr, 4)
        cairo_stroke(cr)
        cairo_set_line_width(cr, 9)
        cairo_move_to(cr, centre.x - 24, centre.y + 2)
        cairo_line_to(cr, centre.x - 7, centre.y + 19)
        cairo_line_to(cr, centre.x + 25, centre.y - 16)
        cairo_stroke(cr)
    }
}
