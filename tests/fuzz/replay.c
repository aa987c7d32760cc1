/* Runs a fuzz target over files and directories of inputs (the committed
 * corpus), for compilers without libFuzzer: the CI's regression check of
 * every input that once mattered. Exit 0 when all ran. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hy_replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
  size_t got = buf && n > 0 ? fread(buf, 1, (size_t)n, f) : 0;
  fclose(f);
  if (!buf) return -1;
  LLVMFuzzerTestOneInput(buf, got);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  long count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: %s not found\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (hy_replay_file(argv[i])) return 1;
      count++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) return 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      if (hy_replay_file(path)) {
        closedir(d);
        return 1;
      }
      count++;
    }
    closedir(d);
  }
  printf("replay: %ld inputs ran\n", count);
  return count > 0 ? 0 : 1;
}
