#include "CLineRecognizer.h"

#include <cstring>
#include <exception>

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>

struct gbg_line_net {
    cv::dnn::Net net;
};

namespace {

void writeError(char *error, size_t capacity, const char *message) {
    if (error == nullptr || capacity == 0) return;
    std::strncpy(error, message, capacity - 1);
    error[capacity - 1] = '\0';
}

}  // namespace

extern "C" gbg_line_net *gbg_line_net_create(const char *path, char *error, size_t error_capacity) {
    if (path == nullptr) {
        writeError(error, error_capacity, "no model path");
        return nullptr;
    }
    try {
        // One reading at a time, off the main thread: OpenCV's own worker threads would only compete with
        // the preview (and the other reader) for the cores.
        cv::setNumThreads(1);
        auto *line = new gbg_line_net();
        line->net = cv::dnn::readNetFromONNX(path);
        if (line->net.empty()) {
            delete line;
            writeError(error, error_capacity, "the file holds no network");
            return nullptr;
        }
        line->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        line->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return line;
    } catch (const std::exception &failure) {
        writeError(error, error_capacity, failure.what());
        return nullptr;
    }
}

extern "C" void gbg_line_net_destroy(gbg_line_net *net) { delete net; }

extern "C" int gbg_line_net_run(
    gbg_line_net *net, const float *input, int height, int width, float *output, size_t capacity, int *classes,
    int *steps) {
    if (net == nullptr || input == nullptr || output == nullptr || classes == nullptr || steps == nullptr
        || height < 1 || height > 64 || width < 8 || width > 4096) {
        return -1;
    }
    try {
        int shape[4] = {1, 1, height, width};
        cv::Mat blob(4, shape, CV_32F, const_cast<float *>(input));
        net->net.setInput(blob);
        cv::Mat result = net->net.forward();
        if (result.dims != 4 || result.size[0] != 1 || result.size[2] != 1 || result.type() != CV_32F
            || !result.isContinuous()) {
            return -1;
        }
        size_t count = size_t(result.size[1]) * size_t(result.size[3]);
        if (count > capacity) return -1;
        std::memcpy(output, result.ptr<float>(), count * sizeof(float));
        *classes = result.size[1];
        *steps = result.size[3];
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}
