#include "CLineRecognizer.h"

#include <cmath>
#include <cstring>
#include <ctime>
#include <vector>
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

extern "C" int gbg_line_net_trial(void *context) {
    const auto *trial = static_cast<const gbg_line_net_trial_context *>(context);
    if (trial == nullptr || trial->stride < 1 || trial->classes < 1) return 1;
    gbg_line_net *net = gbg_line_net_create(trial->path, nullptr, 0);
    if (net == nullptr) return 1;
    std::vector<float> input(size_t(trial->height) * size_t(trial->width), 0.0f);
    size_t capacity = size_t(trial->classes) * size_t(trial->width / trial->stride + 2);
    std::vector<float> output(capacity, 0.0f);
    int classes = 0;
    int steps = 0;
    timespec start{};
    timespec end{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    int status = gbg_line_net_run(
        net, input.data(), trial->height, trial->width, output.data(), capacity, &classes, &steps);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
    gbg_line_net_destroy(net);
    if (status != 0 || classes != trial->classes || steps != trial->width / trial->stride) return 2;
    for (size_t index = 0; index < size_t(classes) * size_t(steps); index++) {
        if (!std::isfinite(output[index])) return 2;
    }
    long used = (end.tv_sec - start.tv_sec) * 1000000L + (end.tv_nsec - start.tv_nsec) / 1000L;
    return used > trial->cpu_budget_microseconds ? 3 : 0;
}
