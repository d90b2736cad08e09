// Faces and eyes with OpenCV's cascade classifiers; see include/CFaceDetection.h.
#include "CFaceDetection.h"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

struct gbg_face_finder {
    cv::CascadeClassifier face;
    cv::CascadeClassifier eye;
    cv::CascadeClassifier glasses;
    cv::CascadeClassifier profile;
    bool hasGlasses = false;
    bool hasProfile = false;
    /// The further search (see gbg_face_finder_find) that found something on the last frame (-1: none),
    /// the one whose turn is next, and for how many more frames a turned face seen lately still counts.
    int sticky = -1;
    int next = 0;
    int turnedMemory = 0;
    /// Frames with a face since the last search for smaller faces beside them, and how many it found.
    int companionTurn = 0;
    int companions = 0;
    /// The faces the first search found on the last frame, on the grey copy (empty when it found none).
    std::vector<cv::Rect> previous;
    cv::Mat grey, small, larger, eyeRegion, faceRegion, laplacian, flipped;
};

namespace {

/// The searches made when no upright frontal face is found, one per frame in turn: unless one keeps finding
/// something (it is then repeated), all of them run within any three frames in a row.
enum ExtraSearch { kSmallFaces, kProfiles, kTilts, kExtraSearches };

/// Width the eye search and the face measures work at: eyes are then 20 to 32 pixels wide, just above the
/// eye cascade's 20-pixel window.
constexpr int kFaceWidth = 128;

void writeError(char *error, size_t capacity, const std::string &text) {
    if (error == nullptr || capacity == 0) return;
    std::snprintf(error, capacity, "%s", text.c_str());
}

bool load(cv::CascadeClassifier &cascade, const char *path, char *error, size_t capacity) {
    if (!cascade.load(path) || cascade.empty()) {
        writeError(error, capacity, std::string("cannot load the cascade ") + path);
        return false;
    }
    return true;
}

/// The best pair among `eyes` (in a region `width` wide): one centre in each half, at about the same
/// height, the largest such pair. Returns false when there is none.
bool pickPair(const std::vector<cv::Rect> &eyes, int width, cv::Point2f &left, cv::Point2f &right) {
    double best = -1;
    for (size_t i = 0; i < eyes.size(); ++i) {
        for (size_t j = 0; j < eyes.size(); ++j) {
            if (i == j) continue;
            cv::Point2f a(eyes[i].x + eyes[i].width / 2.0f, eyes[i].y + eyes[i].height / 2.0f);
            cv::Point2f b(eyes[j].x + eyes[j].width / 2.0f, eyes[j].y + eyes[j].height / 2.0f);
            if (a.x >= width / 2.0f || b.x < width / 2.0f) continue;
            if (std::fabs(a.y - b.y) > 0.25f * width) continue;
            double size = eyes[i].area() + eyes[j].area();
            if (size > best) {
                best = size;
                left = a;
                right = b;
            }
        }
    }
    return best >= 0;
}

/// Faces too small for the cascade's window on the grey copy, in `middle` (a part of that copy), searched on
/// the full-resolution grey picture scaled to `factor` times the copy's size, for face sizes up to `factor`
/// times the window. `found` is in that scale, from `left` (in frame pixels); returns false when the frame
/// is too small for it.
bool findSmallFaces(
    gbg_face_finder &finder, const cv::Rect &middle, double scale, double factor, int minimum,
    std::vector<cv::Rect> &found, int &left) {
    int width = finder.grey.cols;
    int height = finder.grey.rows;
    if (double(finder.small.cols) * factor > width) return false;
    left = int(std::lround(middle.x * scale));
    int across = std::min(width - left, int(std::lround(middle.width * scale)));
    cv::resize(
        finder.grey(cv::Rect(left, 0, across, height)), finder.larger,
        cv::Size(int(std::lround(middle.width * factor)), int(std::lround(middle.height * factor))), 0, 0,
        cv::INTER_AREA);
    cv::equalizeHist(finder.larger, finder.larger);
    cv::Size window = finder.face.getOriginalWindowSize();
    int largest = int(std::max(window.width, minimum) * factor);
    // The narrower range of sizes at 1.5 times is covered in coarser steps.
    finder.face.detectMultiScale(
        finder.larger, found, factor < 2 ? 1.2 : 1.15, 4, 0, cv::Size(minimum, minimum), cv::Size(largest, largest));
    return true;
}

/// Eyes in the upper part of `box` (full-resolution grey), as frame coordinates.
void findEyes(gbg_face_finder &finder, const cv::Rect &box, gbg_face &out) {
    out.eyes_found = 0;
    out.eyes_open = -1;
    cv::Rect upper(box.x, box.y + box.height / 8, box.width, box.height / 2);
    upper &= cv::Rect(0, 0, finder.grey.cols, finder.grey.rows);
    if (upper.width < 8 || upper.height < 8) return;
    double scale = double(kFaceWidth) / upper.width;
    cv::resize(
        finder.grey(upper), finder.eyeRegion,
        cv::Size(kFaceWidth, std::max(1, int(std::lround(upper.height * scale)))), 0, 0, cv::INTER_AREA);
    cv::equalizeHist(finder.eyeRegion, finder.eyeRegion);
    cv::Size minimum(20, 20);
    cv::Size maximum(kFaceWidth / 2, kFaceWidth / 2);
    std::vector<cv::Rect> eyes;
    finder.eye.detectMultiScale(finder.eyeRegion, eyes, 1.15, 3, 0, minimum, maximum);
    cv::Point2f left, right;
    bool paired = pickPair(eyes, kFaceWidth, left, right);
    if (paired) {
        out.eyes_open = 1;
    } else if (finder.hasGlasses) {
        eyes.clear();
        finder.glasses.detectMultiScale(finder.eyeRegion, eyes, 1.15, 3, 0, minimum, maximum);
        paired = pickPair(eyes, kFaceWidth, left, right);
        if (paired) out.eyes_open = 0;
    }
    if (!paired) {
        out.eyes_found = eyes.empty() ? 0 : 1;
        return;
    }
    out.eyes_found = 2;
    out.left_eye_x = float(upper.x + left.x / scale);
    out.left_eye_y = float(upper.y + left.y / scale);
    out.right_eye_x = float(upper.x + right.x / scale);
    out.right_eye_y = float(upper.y + right.y / scale);
}

/// Light and focus on the face itself: the box's inner part (the cheeks, eyes, nose and mouth, little
/// background or hair), scaled to a fixed width so the numbers do not depend on the camera's resolution.
void measureFace(gbg_face_finder &finder, const cv::Rect &box, gbg_face &out) {
    cv::Rect inner(box.x + box.width / 6, box.y + box.height / 8, box.width * 2 / 3, box.height * 3 / 4);
    inner &= cv::Rect(0, 0, finder.grey.cols, finder.grey.rows);
    out.mean_luminance = out.contrast = out.sharpness = 0;
    out.left_right_ratio = 1;
    if (inner.width < 8 || inner.height < 8) return;
    int width = kFaceWidth * 2 / 3;
    int height = std::max(8, int(std::lround(inner.height * double(width) / inner.width)));
    cv::resize(finder.grey(inner), finder.faceRegion, cv::Size(width, height), 0, 0, cv::INTER_AREA);
    cv::Scalar mean, deviation;
    cv::meanStdDev(finder.faceRegion, mean, deviation);
    out.mean_luminance = float(mean[0]);
    out.contrast = float(deviation[0]);
    cv::Laplacian(finder.faceRegion, finder.laplacian, CV_16S, 1);
    cv::Scalar lapMean, lapDeviation;
    cv::meanStdDev(finder.laplacian, lapMean, lapDeviation);
    double variance = deviation[0] * deviation[0];
    out.sharpness = variance > 0 ? float(lapDeviation[0] * lapDeviation[0] / variance) : 0;
    double leftMean = cv::mean(finder.faceRegion(cv::Rect(0, 0, width / 2, height)))[0];
    double rightMean = cv::mean(finder.faceRegion(cv::Rect(width - width / 2, 0, width / 2, height)))[0];
    out.left_right_ratio = rightMean > 0 ? float(leftMean / rightMean) : 1;
}

}  // namespace

extern "C" gbg_face_finder *gbg_face_finder_create(
    const char *face_cascade, const char *eye_cascade, const char *glasses_cascade, const char *profile_cascade,
    char *error, size_t error_capacity) {
    if (face_cascade == nullptr || eye_cascade == nullptr) {
        writeError(error, error_capacity, "a face and an eye cascade are required");
        return nullptr;
    }
    try {
        // One analysis at a time, off the main thread: OpenCV's own worker threads would only compete with
        // the preview for the cores.
        cv::setNumThreads(1);
        auto *finder = new gbg_face_finder();
        if (!load(finder->face, face_cascade, error, error_capacity)
            || !load(finder->eye, eye_cascade, error, error_capacity)) {
            delete finder;
            return nullptr;
        }
        if (glasses_cascade != nullptr) {
            finder->hasGlasses = load(finder->glasses, glasses_cascade, error, error_capacity);
            if (!finder->hasGlasses) {
                delete finder;
                return nullptr;
            }
        }
        if (profile_cascade != nullptr) {
            finder->hasProfile = load(finder->profile, profile_cascade, error, error_capacity);
            if (!finder->hasProfile) {
                delete finder;
                return nullptr;
            }
        }
        return finder;
    } catch (const std::exception &failure) {
        writeError(error, error_capacity, failure.what());
        return nullptr;
    }
}

extern "C" void gbg_face_finder_destroy(gbg_face_finder *finder) { delete finder; }

extern "C" int gbg_face_finder_find(
    gbg_face_finder *finder, const uint8_t *rgb, int width, int height, int stride, int analysis_width,
    float min_face_share, gbg_face *faces, int capacity, int *profiles) {
    if (profiles != nullptr) *profiles = 0;
    if (finder == nullptr || rgb == nullptr || width < 16 || height < 16 || stride < width * 3
        || analysis_width < 16) {
        return -1;
    }
    try {
        cv::Mat frame(height, width, CV_8UC3, const_cast<uint8_t *>(rgb), size_t(stride));
        cv::cvtColor(frame, finder->grey, cv::COLOR_RGB2GRAY);
        int smallWidth = std::min(width, analysis_width);
        double scale = double(width) / smallWidth;
        int smallHeight = std::max(1, int(std::lround(height / scale)));
        cv::resize(finder->grey, finder->small, cv::Size(smallWidth, smallHeight), 0, 0, cv::INTER_AREA);
        cv::equalizeHist(finder->small, finder->small);
        int minimum = std::max(20, int(std::lround(smallWidth * double(min_face_share))));
        std::vector<cv::Rect> found;
        // On the frames that also look for smaller faces (every third with a face), the first search looks only
        // near last frame's faces, at their sizes, so that frame costs about what the others do; the frames in
        // between search the whole picture, and so does this one when a face was not found there again.
        bool narrowed = false;
        if (!finder->previous.empty() && (finder->companionTurn + 1) % 3 == 0) {
            cv::Rect near = finder->previous.front();
            int smallest = near.width;
            int largest = near.width;
            for (const cv::Rect &face : finder->previous) {
                near |= face;
                smallest = std::min(smallest, face.width);
                largest = std::max(largest, face.width);
            }
            int margin = largest / 2 + 2;
            near = cv::Rect(near.x - margin, near.y - margin, near.width + 2 * margin, near.height + 2 * margin)
                & cv::Rect(0, 0, smallWidth, smallHeight);
            int from = std::max(minimum, int(smallest / 1.3));
            int upTo = std::max(from, int(std::ceil(largest * 1.3)));
            if (near.width >= from && near.height >= from) {
                finder->face.detectMultiScale(
                    finder->small(near), found, 1.1, 4, 0, cv::Size(from, from), cv::Size(upTo, upTo));
                for (cv::Rect &face : found) face += near.tl();
                narrowed = found.size() >= finder->previous.size();
            }
        }
        if (!narrowed) {
            found.clear();
            finder->face.detectMultiScale(finder->small, found, 1.1, 4, 0, cv::Size(minimum, minimum));
        }
        finder->previous = found;
        double foundScale = scale;
        int foundOffset = 0;
        int companions = 0;
        cv::Rect middleSmall(smallWidth / 5, 0, smallWidth * 3 / 5, smallHeight);
        cv::Rect wideSmall(smallWidth / 10, 0, smallWidth * 4 / 5, smallHeight);
        int turned = 0;
        if (found.empty()) {
            // No frontal face of the usual sizes. One further search per frame, in turn, keeps the cost of an
            // empty room low, and unless one keeps finding something all three run within any three frames
            // in a row (the hint needs three analyses that agree): faces too small for the cascade's window
            // on the grey copy (down to two thirds of it, on a copy 1.5 times as wide, across the middle
            // four fifths of the picture: a person far away is told to move closer, two people further back
            // are two faces), faces turned aside (the profile cascade, both ways) and faces tilted (the
            // frontal cascade on the copy turned 20 degrees either way; these two in the middle three
            // fifths, where the oval is). A search that found something is tried first on the next frame.
            std::vector<cv::Rect> other;
            cv::Mat centre = finder->small(middleSmall);
            cv::Point2f middle(middleSmall.width / 2.0f, smallHeight / 2.0f);
            auto profiles = [&](bool flipped) {
                if (flipped) cv::flip(centre, finder->flipped, 1);
                std::vector<cv::Rect> seen;
                finder->profile.detectMultiScale(
                    flipped ? finder->flipped : centre, seen, 1.15, 4, 0, cv::Size(minimum, minimum));
                other.insert(other.end(), seen.begin(), seen.end());
            };
            auto tilted = [&](double degrees) {
                cv::warpAffine(
                    centre, finder->flipped, cv::getRotationMatrix2D(middle, degrees, 1.0), centre.size(),
                    cv::INTER_LINEAR, cv::BORDER_REPLICATE);
                std::vector<cv::Rect> seen;
                finder->face.detectMultiScale(finder->flipped, seen, 1.15, 4, 0, cv::Size(minimum, minimum));
                other.insert(other.end(), seen.begin(), seen.end());
            };
            auto run = [&](int kind) -> bool {
                other.clear();
                switch (kind) {
                case kSmallFaces:
                    if (!findSmallFaces(*finder, wideSmall, scale, 1.5, minimum, found, foundOffset)) return false;
                    foundScale = scale / 1.5;
                    return !found.empty();
                case kProfiles:
                    if (!finder->hasProfile) return false;
                    profiles(false);
                    profiles(true);
                    break;
                default:
                    tilted(20.0);
                    tilted(-20.0);
                    break;
                }
                turned += int(other.size());
                return !other.empty();
            };
            int tried = finder->sticky;
            bool hit = tried >= 0 && run(tried);
            if (!hit) {
                finder->sticky = -1;
                int kind = finder->next;
                if (kind == tried) kind = (kind + 1) % kExtraSearches;
                finder->next = (kind + 1) % kExtraSearches;
                if (run(kind)) finder->sticky = kind;
            }
            // A turned face seen in the last few frames still counts, so that the searches taking turns do
            // not make the answer flicker.
            if (turned > 0) {
                finder->turnedMemory = kExtraSearches;
            } else if (found.empty() && finder->turnedMemory > 0) {
                finder->turnedMemory -= 1;
                turned = 1;
            }
        } else {
            finder->sticky = -1;
            finder->turnedMemory = 0;
            // A second, smaller face (someone further back) escapes the first search when it is under the
            // cascade's window there: every third frame with a face, the small-face search looks for more,
            // and what it finds away from the faces already found counts until its next turn. It looks at 1.5
            // times the grey copy's size: a face of about two thirds of the window there.
            finder->companionTurn = (finder->companionTurn + 1) % 3;
            if (finder->companionTurn == 0) {
                std::vector<cv::Rect> smaller;
                int left = 0;
                finder->companions = 0;
                if (findSmallFaces(*finder, middleSmall, scale, 1.5, minimum, smaller, left)) {
                    for (const cv::Rect &candidate : smaller) {
                        cv::Point2d centre(
                            left + (candidate.x + candidate.width / 2.0) * scale / 1.5,
                            (candidate.y + candidate.height / 2.0) * scale / 1.5);
                        bool known = false;
                        for (const cv::Rect &face : found) {
                            cv::Rect2d box(face.x * scale, face.y * scale, face.width * scale, face.height * scale);
                            if (box.contains(centre)) known = true;
                        }
                        if (!known) finder->companions += 1;
                    }
                }
            }
            companions = finder->companions;
        }
        std::sort(found.begin(), found.end(), [](const cv::Rect &a, const cv::Rect &b) { return a.area() > b.area(); });
        if (profiles != nullptr) *profiles = found.empty() ? turned : 0;
        int count = int(found.size()) + companions;
        for (int index = 0; index < std::min(int(found.size()), capacity); ++index) {
            const cv::Rect &small = found[size_t(index)];
            cv::Rect box(
                foundOffset + int(std::lround(small.x * foundScale)), int(std::lround(small.y * foundScale)),
                int(std::lround(small.width * foundScale)), int(std::lround(small.height * foundScale)));
            box &= cv::Rect(0, 0, width, height);
            gbg_face &out = faces[index];
            std::memset(&out, 0, sizeof out);
            out.x = float(box.x);
            out.y = float(box.y);
            out.width = float(box.width);
            out.height = float(box.height);
            // Eyes only in the largest face: with more than one face the hint is "only one person" whatever
            // their eyes are.
            if (index == 0) {
                findEyes(*finder, box, out);
            } else {
                out.eyes_found = 0;
                out.eyes_open = -1;
            }
            measureFace(*finder, box, out);
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}
