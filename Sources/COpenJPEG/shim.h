#ifndef GBGBRIDGE_COPENJPEG_SHIM_H
#define GBGBRIDGE_COPENJPEG_SHIM_H

#include <openjpeg.h>
#include <stdlib.h>
#include <string.h>

/* An OpenJPEG input stream over bytes in memory (OpenJPEG itself only reads files). */
typedef struct {
    const unsigned char *data;
    size_t length;
    size_t position;
} gbg_opj_memory;

static OPJ_SIZE_T gbg_opj_memory_read(void *buffer, OPJ_SIZE_T count, void *user) {
    gbg_opj_memory *memory = (gbg_opj_memory *)user;
    if (memory->position >= memory->length) return (OPJ_SIZE_T)-1;
    size_t available = memory->length - memory->position;
    size_t taken = count < available ? count : available;
    memcpy(buffer, memory->data + memory->position, taken);
    memory->position += taken;
    return taken;
}

static OPJ_OFF_T gbg_opj_memory_skip(OPJ_OFF_T count, void *user) {
    gbg_opj_memory *memory = (gbg_opj_memory *)user;
    if (count < 0) {
        if ((size_t)(-count) > memory->position) return -1;
        memory->position -= (size_t)(-count);
        return count;
    }
    size_t available = memory->length - memory->position;
    size_t skipped = (size_t)count < available ? (size_t)count : available;
    memory->position += skipped;
    return (OPJ_OFF_T)skipped;
}

static OPJ_BOOL gbg_opj_memory_seek(OPJ_OFF_T position, void *user) {
    gbg_opj_memory *memory = (gbg_opj_memory *)user;
    if (position < 0 || (size_t)position > memory->length) return OPJ_FALSE;
    memory->position = (size_t)position;
    return OPJ_TRUE;
}

/* A stream reading `length` bytes at `data`; the bytes must outlive the stream. */
static inline opj_stream_t *gbg_opj_memory_stream(const unsigned char *data, size_t length) {
    gbg_opj_memory *memory = (gbg_opj_memory *)calloc(1, sizeof(gbg_opj_memory));
    if (!memory) return NULL;
    memory->data = data;
    memory->length = length;
    opj_stream_t *stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
    if (!stream) {
        free(memory);
        return NULL;
    }
    opj_stream_set_read_function(stream, gbg_opj_memory_read);
    opj_stream_set_skip_function(stream, gbg_opj_memory_skip);
    opj_stream_set_seek_function(stream, gbg_opj_memory_seek);
    opj_stream_set_user_data(stream, memory, free);
    opj_stream_set_user_data_length(stream, length);
    return stream;
}

#endif
