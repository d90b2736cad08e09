// Faces and eyes found in RGB camera frames with OpenCV's cascade classifiers (Debian's libopencv-objdetect
// and the cascades in opencv-data). A plain C interface over a C++ file, so Swift needs no C++ interop.
#ifndef GBG_FACE_DETECTION_H
#define GBG_FACE_DETECTION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A face finder: the loaded cascades and its working buffers. Not thread-safe: one caller at a time.
typedef struct gbg_face_finder gbg_face_finder;

/// One face, in the frame's pixels.
typedef struct {
    /// The face box (top-left corner, size).
    float x, y, width, height;
    /// Eyes found in the box's upper part: 0, 1 or 2 (a pair only when one lies in each half of the box).
    int eyes_found;
    /// Centres of the eye on the picture's left and on its right (valid when eyes_found is 2).
    float left_eye_x, left_eye_y, right_eye_x, right_eye_y;
    /// 1 when the open-eye cascade found both eyes; 0 when only the cascade that also takes eyes behind
    /// glasses (and closed ones) found them; -1 when no pair was found.
    int eyes_open;
    /// On the face itself (the box's inner part, scaled to a fixed width): mean luminance 0...255, its
    /// standard deviation, the variance of the Laplacian over the variance of luminance (sharpness), and the
    /// mean of the picture's left half of the face over its right half (even light: near 1).
    float mean_luminance, contrast, sharpness, left_right_ratio;
} gbg_face;

/// Loads the cascades. `face_cascade` and `eye_cascade` are required; `glasses_cascade` and `profile_cascade`
/// may be NULL. On failure returns NULL and writes why into `error` (at most `error_capacity` bytes).
gbg_face_finder *gbg_face_finder_create(
    const char *face_cascade, const char *eye_cascade, const char *glasses_cascade, const char *profile_cascade,
    char *error, size_t error_capacity);

/// Frees a finder (NULL is fine).
void gbg_face_finder_destroy(gbg_face_finder *finder);

/// Finds faces in an RGB frame (3 bytes a pixel, `stride` bytes a row), searched on a grey copy
/// `analysis_width` pixels wide; each face's measures, and the largest face's eyes (the others get
/// eyes_found 0), come from the full-resolution picture.
/// Writes up to `capacity` faces, largest first, and returns how many were found (possibly more than
/// `capacity`), or -1 on an error. `min_face_share` is the smallest face width searched, as a share of the
/// frame's width. When no frontal face of the usual sizes is found, one further search runs per call, in
/// turn (the one that found something last time first), so that all have run within three calls unless one
/// keeps finding something: faces too small for the first search, faces turned aside (the profile cascade,
/// both ways) and faces tilted (the frontal cascade on the picture turned 20 degrees either way).
/// `*profiles` (if not NULL) is then set to the number of turned or tilted faces seen (a face seen so
/// in the last few calls counts as one); otherwise to 0. When faces are found, every third call also looks
/// for smaller faces beside them (someone further back); those count in the returned number (not
/// described in `faces`) until the next such look. On those calls the first search looks only near the
/// faces of the call before, at their sizes (the whole picture again when it finds fewer there).
/// Successive calls should be successive frames of one camera.
int gbg_face_finder_find(
    gbg_face_finder *finder, const uint8_t *rgb, int width, int height, int stride, int analysis_width,
    float min_face_share, gbg_face *faces, int capacity, int *profiles);

#ifdef __cplusplus
}
#endif

#endif
