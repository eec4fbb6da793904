// The C boundary to libzstd. Only Sources/ArchiveIO/_Zstd+Syscalls.swift calls into it.
#ifndef SMSFILTER_CZSTD_SHIM_H
#define SMSFILTER_CZSTD_SHIM_H
#include <zstd.h>
#include <zstd_errors.h>
#endif
