/* pti/hmi-api.h: PTI_API, the one definition of how pti's libraries export
 * a function, for every public header (<pti/hmi.h>, <pti/expr.h>,
 * <pti/rud.h>, <pti/wsl.h>) and the headers private to pti's components.
 * Included by them; a program has no reason to include it itself.
 */
#pragma once

/**
 * PTI_API:
 *
 * Marks a function a pti library exports (the libraries are built with
 * hidden visibility, so only these are seen).  A build may define it
 * beforehand to something else (e.g. empty); then it is left alone.
 */
#ifndef PTI_API
#  if defined(_WIN32)
#    define PTI_API __declspec(dllexport)
#  else
#    define PTI_API __attribute__((visibility("default")))
#  endif
#endif
