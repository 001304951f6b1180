// Runs before main, so before the runtime writes the expanded type structures into .hydrated (2 MiB in
// a default console): asks for a transparent huge page there, one fault instead of ~512.
// build/HugePages.targets says why; hydrated.ld aligns the section and defines these two symbols.
#include <stddef.h>
#include <sys/mman.h>

extern char __prewire_hydrated_start[] __attribute__((visibility("hidden")));
extern char __prewire_hydrated_end[] __attribute__((visibility("hidden")));

__attribute__((constructor)) static void prewire_hydrated_hugepage(void)
{
    // Only a hint: where transparent huge pages are off ("never"), the pages stay small. The start is
    // 2 MiB-aligned, so page-aligned for any page size; madvise rounds the length up itself.
    size_t length = (size_t)(__prewire_hydrated_end - __prewire_hydrated_start);
    if (length > 0)
        (void)madvise(__prewire_hydrated_start, length, MADV_HUGEPAGE);
}
