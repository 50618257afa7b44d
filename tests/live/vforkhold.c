/* vforkhold: make a vfork parent that stays in D state (kernel_clone /
 * wait_for_vfork_done) while its child sleeps.
 *
 *   vforkhold [--name NAME | --hostile] SECONDS
 *
 * Renames itself (prctl PR_SET_NAME) if asked, prints "parent TID\n", then
 * clone(CLONE_VM|CLONE_VFORK|SIGCHLD) on its own stack; the child renames
 * itself "vfchild", prints "child PID\n" and sleeps SECONDS.  Both die with
 * their parent (PR_SET_PDEATHSIG), so a killed test never leaves them behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOSTILE "a\nb\"c\\\x1b[31m"
#define STACK_SIZE (256 * 1024)

static unsigned sleep_s;

static void say(const char *s)
{
	if (write(STDOUT_FILENO, s, strlen(s)) < 0)
		_exit(111);
}

static int child_fn(void *arg)
{
	char buf[64];
	(void)arg;
	/* Shares memory with the suspended parent: keep to syscalls and the stack. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "vfchild");
	snprintf(buf, sizeof buf, "child %ld\n", (long)syscall(SYS_getpid));
	say(buf);
	struct timespec ts = { .tv_sec = sleep_s, .tv_nsec = 0 };
	while (syscall(SYS_nanosleep, &ts, &ts) < 0 && errno == EINTR)
		;
	syscall(SYS_exit, 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	int i;
	for (i = 1; i < argc - 1; i++) {
		if (!strcmp(argv[i], "--hostile"))
			name = HOSTILE;
		else if (!strcmp(argv[i], "--name") && i + 1 < argc - 1)
			name = argv[++i];
		else
			break;
	}
	if (i != argc - 1 || (sleep_s = (unsigned)strtoul(argv[i], NULL, 10)) == 0) {
		fprintf(stderr, "usage: vforkhold [--name NAME|--hostile] SECONDS\n");
		return 2;
	}
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
		return 1;
	if (name && prctl(PR_SET_NAME, name) < 0) {
		perror("prctl(PR_SET_NAME)");
		return 1;
	}
	char buf[64];
	snprintf(buf, sizeof buf, "parent %ld\n", (long)syscall(SYS_gettid));
	say(buf);

	char *stack = malloc(STACK_SIZE);
	if (!stack)
		return 1;
	pid_t pid = clone(child_fn, stack + STACK_SIZE, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
	if (pid < 0) {
		perror("clone");
		return 1;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	say("done\n");
	return 0;
}
