// Linux socket calls Glibc's Swift module leaves out: epoll, and accept4 (declared under
// _GNU_SOURCE, which the prebuilt Glibc module does not see). <sys/socket.h> is not
// included here: its macros would shadow Glibc's SOCK_* constants in Swift.
#include <sys/epoll.h>

struct sockaddr;
extern int accept4(int sockfd, struct sockaddr *addr, unsigned int *addrlen, int flags);

// pipe2 (also _GNU_SOURCE only): a pipe made close-on-exec atomically, for Posix.spawnShell.
extern int pipe2(int pipefd[2], int flags);

// glibc's malloc_trim (<malloc.h>, which Glibc's Swift module leaves out): hands free heap
// pages back to the kernel after large releases (Posix.returnFreeMemory).
#include <malloc.h>
