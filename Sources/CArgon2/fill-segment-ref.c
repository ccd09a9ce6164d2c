/* The portable reference fill_segment, under the name fill-segment.c dispatches to. */
#define fill_segment argon2_fill_segment_ref
#include "upstream/ref.c"
