/// The directory and language name Tesseract takes for a model path: `DIR/NAME.traineddata`.
struct ModelLocation {
    let directory: String
    let language: String

    init?(_ modelPath: String) {
        let suffix = ".traineddata"
        guard modelPath.hasSuffix(suffix) else { return nil }
        let file = modelPath.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        language = String(file.dropLast(suffix.count))
        directory = modelPath.contains("/") ? String(modelPath.dropLast(file.count)) : "./"
        guard !language.isEmpty else { return nil }
    }
}
