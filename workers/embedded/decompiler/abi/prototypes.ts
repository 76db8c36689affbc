/**
 * Built-in prototypes of the C library, POSIX and the common Win32 API, so calls to them get
 * their argument counts and types. A user's `set_function_prototype` wins over these.
 */

import { parsePrototype, type Prototype } from "./prototype.ts";

const LIBC = `
int printf(const char *format, ...); int fprintf(void *stream, const char *format, ...);
int sprintf(char *str, const char *format, ...); int snprintf(char *str, size_t size, const char *format, ...);
int dprintf(int fd, const char *format, ...); int asprintf(char **strp, const char *format, ...);
int vprintf(const char *format, void *ap); int vfprintf(void *stream, const char *format, void *ap);
int vsprintf(char *str, const char *format, void *ap); int vsnprintf(char *str, size_t size, const char *format, void *ap);
int __printf_chk(int flag, const char *format, ...); int __fprintf_chk(void *stream, int flag, const char *format, ...);
int __sprintf_chk(char *str, int flag, size_t slen, const char *format, ...);
int __snprintf_chk(char *str, size_t maxlen, int flag, size_t slen, const char *format, ...);
int __vfprintf_chk(void *stream, int flag, const char *format, void *ap);
int __vsnprintf_chk(char *str, size_t maxlen, int flag, size_t slen, const char *format, void *ap);
int scanf(const char *format, ...); int sscanf(const char *str, const char *format, ...);
int fscanf(void *stream, const char *format, ...); int __isoc99_scanf(const char *format, ...);
int __isoc99_sscanf(const char *str, const char *format, ...); int __isoc99_fscanf(void *stream, const char *format, ...);
int puts(const char *s); int fputs(const char *s, void *stream); int putchar(int c); int fputc(int c, void *stream);
int putc(int c, void *stream); int getchar(void); int fgetc(void *stream); int getc(void *stream); int ungetc(int c, void *stream);
char *fgets(char *s, int size, void *stream); char *gets(char *s);
void *fopen(const char *path, const char *mode); void *fdopen(int fd, const char *mode);
void *freopen(const char *path, const char *mode, void *stream); int fclose(void *stream); int fflush(void *stream);
size_t fread(void *ptr, size_t size, size_t nmemb, void *stream); size_t fwrite(const void *ptr, size_t size, size_t nmemb, void *stream);
int fseek(void *stream, long offset, int whence); long ftell(void *stream); void rewind(void *stream);
int feof(void *stream); int ferror(void *stream); void clearerr(void *stream); int fileno(void *stream);
void perror(const char *s); int remove(const char *path); int rename(const char *oldpath, const char *newpath);
void *tmpfile(void); int setvbuf(void *stream, char *buf, int mode, size_t size); void setbuf(void *stream, char *buf);
ssize_t getline(char **lineptr, size_t *n, void *stream); ssize_t getdelim(char **lineptr, size_t *n, int delim, void *stream);
void *malloc(size_t size); void *calloc(size_t nmemb, size_t size); void *realloc(void *ptr, size_t size);
void *reallocarray(void *ptr, size_t nmemb, size_t size); void free(void *ptr);
void *aligned_alloc(size_t alignment, size_t size); int posix_memalign(void **memptr, size_t alignment, size_t size);
void abort(void); void exit(int status); void _exit(int status); void _Exit(int status); int atexit(void *function);
int __cxa_atexit(void *func, void *arg, void *dso); void __cxa_finalize(void *d);
char *getenv(const char *name); char *secure_getenv(const char *name); int setenv(const char *name, const char *value, int overwrite);
int unsetenv(const char *name); int putenv(char *string); int system(const char *command);
int atoi(const char *nptr); long atol(const char *nptr); long long atoll(const char *nptr); double atof(const char *nptr);
long strtol(const char *nptr, char **endptr, int base); unsigned long strtoul(const char *nptr, char **endptr, int base);
long long strtoll(const char *nptr, char **endptr, int base); unsigned long long strtoull(const char *nptr, char **endptr, int base);
intmax_t strtoimax(const char *nptr, char **endptr, int base); uintmax_t strtoumax(const char *nptr, char **endptr, int base);
double strtod(const char *nptr, char **endptr); float strtof(const char *nptr, char **endptr); long double strtold(const char *nptr, char **endptr);
int abs(int j); long labs(long j); int rand(void); void srand(unsigned int seed); long random(void); void srandom(unsigned int seed);
void qsort(void *base, size_t nmemb, size_t size, void *compar);
void *bsearch(const void *key, const void *base, size_t nmemb, size_t size, void *compar);
void *memcpy(void *dest, const void *src, size_t n); void *memmove(void *dest, const void *src, size_t n);
void *memset(void *s, int c, size_t n); int memcmp(const void *s1, const void *s2, size_t n);
void *memchr(const void *s, int c, size_t n); void *memrchr(const void *s, int c, size_t n); void *rawmemchr(const void *s, int c);
void *mempcpy(void *dest, const void *src, size_t n); void *__memcpy_chk(void *dest, const void *src, size_t len, size_t destlen);
void *__memset_chk(void *dest, int c, size_t len, size_t destlen); void *__memmove_chk(void *dest, const void *src, size_t len, size_t destlen);
size_t strlen(const char *s); size_t strnlen(const char *s, size_t maxlen); char *strcpy(char *dest, const char *src);
char *strncpy(char *dest, const char *src, size_t n); char *stpcpy(char *dest, const char *src); char *strcat(char *dest, const char *src);
char *strncat(char *dest, const char *src, size_t n); int strcmp(const char *s1, const char *s2); int strncmp(const char *s1, const char *s2, size_t n);
int strcasecmp(const char *s1, const char *s2); int strncasecmp(const char *s1, const char *s2, size_t n); int strcoll(const char *s1, const char *s2);
char *strchr(const char *s, int c); char *strrchr(const char *s, int c); char *strchrnul(const char *s, int c);
char *strstr(const char *haystack, const char *needle); char *strcasestr(const char *haystack, const char *needle);
char *strdup(const char *s); char *strndup(const char *s, size_t n); char *strtok(char *str, const char *delim);
char *strtok_r(char *str, const char *delim, char **saveptr); char *strsep(char **stringp, const char *delim);
size_t strspn(const char *s, const char *accept); size_t strcspn(const char *s, const char *reject); char *strpbrk(const char *s, const char *accept);
char *strerror(int errnum); int strerror_r(int errnum, char *buf, size_t buflen); char *strsignal(int sig);
size_t strxfrm(char *dest, const char *src, size_t n); size_t strlcpy(char *dst, const char *src, size_t size); size_t strlcat(char *dst, const char *src, size_t size);
char *__strcpy_chk(char *dest, const char *src, size_t destlen); char *__strcat_chk(char *dest, const char *src, size_t destlen);
int isalpha(int c); int isdigit(int c); int isalnum(int c); int isspace(int c); int isupper(int c); int islower(int c);
int isprint(int c); int ispunct(int c); int isxdigit(int c); int iscntrl(int c); int isgraph(int c); int toupper(int c); int tolower(int c);
const unsigned short **__ctype_b_loc(void); const int **__ctype_toupper_loc(void); const int **__ctype_tolower_loc(void);
int *__errno_location(void); void __stack_chk_fail(void); void __assert_fail(const char *assertion, const char *file, unsigned int line, const char *function);
void __libc_start_main(void *main, int argc, char **argv, void *init, void *fini, void *rtld_fini, void *stack_end);
size_t wcslen(const wchar_t *s); wchar_t *wcscpy(wchar_t *dest, const wchar_t *src); int wcscmp(const wchar_t *s1, const wchar_t *s2);
size_t mbstowcs(wchar_t *dest, const char *src, size_t n); size_t wcstombs(char *dest, const wchar_t *src, size_t n);
size_t mbrtowc(wchar_t *pwc, const char *s, size_t n, void *ps); int mbsinit(const void *ps); int wcwidth(wchar_t c);
char *setlocale(int category, const char *locale); void *localeconv(void); char *nl_langinfo(int item);
char *gettext(const char *msgid); char *dcgettext(const char *domainname, const char *msgid, int category);
char *ngettext(const char *msgid, const char *msgid_plural, unsigned long n); char *bindtextdomain(const char *domainname, const char *dirname);
char *textdomain(const char *domainname);
double sqrt(double x); double pow(double x, double y); double exp(double x); double log(double x); double log10(double x);
double sin(double x); double cos(double x); double tan(double x); double atan2(double y, double x); double floor(double x);
double ceil(double x); double fabs(double x); double fmod(double x, double y); double round(double x); double trunc(double x);
time_t time(time_t *tloc); clock_t clock(void); double difftime(time_t time1, time_t time0);
struct tm *localtime(const time_t *timep); struct tm *gmtime(const time_t *timep); struct tm *localtime_r(const time_t *timep, struct tm *result);
time_t mktime(struct tm *tm); size_t strftime(char *s, size_t max, const char *format, const struct tm *tm);
char *ctime(const time_t *timep); int gettimeofday(void *tv, void *tz); int clock_gettime(int clockid, void *tp);
int nanosleep(const void *req, void *rem); unsigned int sleep(unsigned int seconds); int usleep(unsigned int usec);
int open(const char *pathname, int flags, ...); int openat(int dirfd, const char *pathname, int flags, ...);
int close(int fd); ssize_t read(int fd, void *buf, size_t count); ssize_t write(int fd, const void *buf, size_t count);
off_t lseek(int fd, off_t offset, int whence); int dup(int oldfd); int dup2(int oldfd, int newfd); int pipe(int *pipefd);
int unlink(const char *pathname); int rmdir(const char *pathname); int mkdir(const char *pathname, int mode); int chdir(const char *path);
char *getcwd(char *buf, size_t size); int access(const char *pathname, int mode); int chmod(const char *pathname, int mode);
int stat(const char *pathname, void *statbuf); int fstat(int fd, void *statbuf); int lstat(const char *pathname, void *statbuf);
int fstatat(int dirfd, const char *pathname, void *statbuf, int flags); ssize_t readlink(const char *pathname, char *buf, size_t bufsiz);
int isatty(int fd); int ioctl(int fd, unsigned long request, ...); int fcntl(int fd, int cmd, ...);
int fork(void); int execve(const char *pathname, char **argv, char **envp); int execvp(const char *file, char **argv);
int waitpid(int pid, int *wstatus, int options); int getpid(void); int getppid(void); int getuid(void); int geteuid(void);
int getgid(void); int getegid(void); int kill(int pid, int sig); void *signal(int signum, void *handler);
int sigaction(int signum, const void *act, void *oldact); int sigemptyset(void *set); int sigaddset(void *set, int signum);
int sigprocmask(int how, const void *set, void *oldset); int raise(int sig); unsigned int alarm(unsigned int seconds);
void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset); int munmap(void *addr, size_t length);
int mprotect(void *addr, size_t len, int prot); long sysconf(int name); int getopt(int argc, char **argv, const char *optstring);
int getopt_long(int argc, char **argv, const char *optstring, const void *longopts, int *longindex);
void *opendir(const char *name); void *readdir(void *dirp); int closedir(void *dirp); void *fdopendir(int fd); int dirfd(void *dirp);
void *dlopen(const char *filename, int flags); void *dlsym(void *handle, const char *symbol); int dlclose(void *handle); char *dlerror(void);
int pthread_create(void *thread, const void *attr, void *start_routine, void *arg); int pthread_join(unsigned long thread, void **retval);
int pthread_mutex_lock(void *mutex); int pthread_mutex_unlock(void *mutex); int pthread_mutex_init(void *mutex, const void *attr);
int pthread_mutex_destroy(void *mutex); int pthread_once(void *once_control, void *init_routine); unsigned long pthread_self(void);
int socket(int domain, int type, int protocol); int connect(int sockfd, const void *addr, unsigned int addrlen);
int bind(int sockfd, const void *addr, unsigned int addrlen); int listen(int sockfd, int backlog); int accept(int sockfd, void *addr, unsigned int *addrlen);
ssize_t send(int sockfd, const void *buf, size_t len, int flags); ssize_t recv(int sockfd, void *buf, size_t len, int flags);
ssize_t sendto(int sockfd, const void *buf, size_t len, int flags, const void *dest_addr, unsigned int addrlen);
ssize_t recvfrom(int sockfd, void *buf, size_t len, int flags, void *src_addr, unsigned int *addrlen);
int setsockopt(int sockfd, int level, int optname, const void *optval, unsigned int optlen); int shutdown(int sockfd, int how);
int getaddrinfo(const char *node, const char *service, const void *hints, void **res); void freeaddrinfo(void *res);
uint16_t htons(uint16_t hostshort); uint32_t htonl(uint32_t hostlong); uint16_t ntohs(uint16_t netshort); uint32_t ntohl(uint32_t netlong);
int select(int nfds, void *readfds, void *writefds, void *exceptfds, void *timeout); int poll(void *fds, unsigned long nfds, int timeout);
void *_Znwm(size_t size); void *_Znam(size_t size); void _ZdlPv(void *ptr); void _ZdaPv(void *ptr); void _ZdlPvm(void *ptr, size_t size);
void *__cxa_allocate_exception(size_t size); void __cxa_throw(void *obj, void *tinfo, void *dest); void __cxa_pure_virtual(void);
`;

const WIN32 = `
void *CreateFileA(const char *lpFileName, uint32_t dwDesiredAccess, uint32_t dwShareMode, void *lpSecurityAttributes, uint32_t dwCreationDisposition, uint32_t dwFlagsAndAttributes, void *hTemplateFile);
void *CreateFileW(const wchar_t *lpFileName, uint32_t dwDesiredAccess, uint32_t dwShareMode, void *lpSecurityAttributes, uint32_t dwCreationDisposition, uint32_t dwFlagsAndAttributes, void *hTemplateFile);
int ReadFile(void *hFile, void *lpBuffer, uint32_t nNumberOfBytesToRead, uint32_t *lpNumberOfBytesRead, void *lpOverlapped);
int WriteFile(void *hFile, const void *lpBuffer, uint32_t nNumberOfBytesToWrite, uint32_t *lpNumberOfBytesWritten, void *lpOverlapped);
int CloseHandle(void *hObject); uint32_t GetLastError(void); void SetLastError(uint32_t dwErrCode);
uint32_t GetFileSize(void *hFile, uint32_t *lpFileSizeHigh); int GetFileSizeEx(void *hFile, void *lpFileSize);
uint32_t SetFilePointer(void *hFile, int32_t lDistanceToMove, int32_t *lpDistanceToMoveHigh, uint32_t dwMoveMethod);
int DeleteFileA(const char *lpFileName); int DeleteFileW(const wchar_t *lpFileName);
int CopyFileA(const char *lpExistingFileName, const char *lpNewFileName, int bFailIfExists); int CopyFileW(const wchar_t *lpExistingFileName, const wchar_t *lpNewFileName, int bFailIfExists);
int MoveFileA(const char *lpExistingFileName, const char *lpNewFileName); int MoveFileW(const wchar_t *lpExistingFileName, const wchar_t *lpNewFileName);
int CreateDirectoryA(const char *lpPathName, void *lpSecurityAttributes); int CreateDirectoryW(const wchar_t *lpPathName, void *lpSecurityAttributes);
void *FindFirstFileA(const char *lpFileName, void *lpFindFileData); void *FindFirstFileW(const wchar_t *lpFileName, void *lpFindFileData);
int FindNextFileA(void *hFindFile, void *lpFindFileData); int FindNextFileW(void *hFindFile, void *lpFindFileData); int FindClose(void *hFindFile);
uint32_t GetFileAttributesA(const char *lpFileName); uint32_t GetFileAttributesW(const wchar_t *lpFileName);
uint32_t GetModuleFileNameA(void *hModule, char *lpFilename, uint32_t nSize); uint32_t GetModuleFileNameW(void *hModule, wchar_t *lpFilename, uint32_t nSize);
void *GetModuleHandleA(const char *lpModuleName); void *GetModuleHandleW(const wchar_t *lpModuleName);
void *LoadLibraryA(const char *lpLibFileName); void *LoadLibraryW(const wchar_t *lpLibFileName);
void *LoadLibraryExA(const char *lpLibFileName, void *hFile, uint32_t dwFlags); void *LoadLibraryExW(const wchar_t *lpLibFileName, void *hFile, uint32_t dwFlags);
void *GetProcAddress(void *hModule, const char *lpProcName); int FreeLibrary(void *hLibModule);
void *VirtualAlloc(void *lpAddress, size_t dwSize, uint32_t flAllocationType, uint32_t flProtect); int VirtualFree(void *lpAddress, size_t dwSize, uint32_t dwFreeType);
int VirtualProtect(void *lpAddress, size_t dwSize, uint32_t flNewProtect, uint32_t *lpflOldProtect);
void *VirtualAllocEx(void *hProcess, void *lpAddress, size_t dwSize, uint32_t flAllocationType, uint32_t flProtect);
int WriteProcessMemory(void *hProcess, void *lpBaseAddress, const void *lpBuffer, size_t nSize, size_t *lpNumberOfBytesWritten);
int ReadProcessMemory(void *hProcess, const void *lpBaseAddress, void *lpBuffer, size_t nSize, size_t *lpNumberOfBytesRead);
void *GetProcessHeap(void); void *HeapAlloc(void *hHeap, uint32_t dwFlags, size_t dwBytes); int HeapFree(void *hHeap, uint32_t dwFlags, void *lpMem);
void *HeapReAlloc(void *hHeap, uint32_t dwFlags, void *lpMem, size_t dwBytes); void *LocalAlloc(uint32_t uFlags, size_t uBytes); void *LocalFree(void *hMem);
void *GlobalAlloc(uint32_t uFlags, size_t dwBytes); void *GlobalFree(void *hMem);
void *CreateThread(void *lpThreadAttributes, size_t dwStackSize, void *lpStartAddress, void *lpParameter, uint32_t dwCreationFlags, uint32_t *lpThreadId);
void *CreateRemoteThread(void *hProcess, void *lpThreadAttributes, size_t dwStackSize, void *lpStartAddress, void *lpParameter, uint32_t dwCreationFlags, uint32_t *lpThreadId);
int CreateProcessA(const char *lpApplicationName, char *lpCommandLine, void *lpProcessAttributes, void *lpThreadAttributes, int bInheritHandles, uint32_t dwCreationFlags, void *lpEnvironment, const char *lpCurrentDirectory, void *lpStartupInfo, void *lpProcessInformation);
int CreateProcessW(const wchar_t *lpApplicationName, wchar_t *lpCommandLine, void *lpProcessAttributes, void *lpThreadAttributes, int bInheritHandles, uint32_t dwCreationFlags, void *lpEnvironment, const wchar_t *lpCurrentDirectory, void *lpStartupInfo, void *lpProcessInformation);
void *OpenProcess(uint32_t dwDesiredAccess, int bInheritHandle, uint32_t dwProcessId); int TerminateProcess(void *hProcess, uint32_t uExitCode);
void ExitProcess(uint32_t uExitCode); void ExitThread(uint32_t dwExitCode); void *GetCurrentProcess(void); uint32_t GetCurrentProcessId(void);
void *GetCurrentThread(void); uint32_t GetCurrentThreadId(void); uint32_t WaitForSingleObject(void *hHandle, uint32_t dwMilliseconds);
uint32_t WaitForMultipleObjects(uint32_t nCount, void *const *lpHandles, int bWaitAll, uint32_t dwMilliseconds); void Sleep(uint32_t dwMilliseconds);
void *CreateEventA(void *lpEventAttributes, int bManualReset, int bInitialState, const char *lpName); void *CreateEventW(void *lpEventAttributes, int bManualReset, int bInitialState, const wchar_t *lpName);
int SetEvent(void *hEvent); int ResetEvent(void *hEvent); void *CreateMutexA(void *lpMutexAttributes, int bInitialOwner, const char *lpName);
void *CreateMutexW(void *lpMutexAttributes, int bInitialOwner, const wchar_t *lpName); int ReleaseMutex(void *hMutex);
void InitializeCriticalSection(void *lpCriticalSection); void EnterCriticalSection(void *lpCriticalSection);
void LeaveCriticalSection(void *lpCriticalSection); void DeleteCriticalSection(void *lpCriticalSection);
uint32_t GetTickCount(void); uint64_t GetTickCount64(void); int QueryPerformanceCounter(void *lpPerformanceCount); int QueryPerformanceFrequency(void *lpFrequency);
void GetSystemTimeAsFileTime(void *lpSystemTimeAsFileTime); void GetSystemInfo(void *lpSystemInfo); void GetStartupInfoW(void *lpStartupInfo);
char *GetCommandLineA(void); wchar_t *GetCommandLineW(void); uint32_t GetEnvironmentVariableA(const char *lpName, char *lpBuffer, uint32_t nSize);
uint32_t GetEnvironmentVariableW(const wchar_t *lpName, wchar_t *lpBuffer, uint32_t nSize); int SetEnvironmentVariableW(const wchar_t *lpName, const wchar_t *lpValue);
uint32_t GetTempPathA(uint32_t nBufferLength, char *lpBuffer); uint32_t GetTempPathW(uint32_t nBufferLength, wchar_t *lpBuffer);
uint32_t GetSystemDirectoryA(char *lpBuffer, uint32_t uSize); uint32_t GetSystemDirectoryW(wchar_t *lpBuffer, uint32_t uSize);
uint32_t GetWindowsDirectoryW(wchar_t *lpBuffer, uint32_t uSize); int GetComputerNameA(char *lpBuffer, uint32_t *nSize); int GetComputerNameW(wchar_t *lpBuffer, uint32_t *nSize);
int MultiByteToWideChar(uint32_t CodePage, uint32_t dwFlags, const char *lpMultiByteStr, int cbMultiByte, wchar_t *lpWideCharStr, int cchWideChar);
int WideCharToMultiByte(uint32_t CodePage, uint32_t dwFlags, const wchar_t *lpWideCharStr, int cchWideChar, char *lpMultiByteStr, int cbMultiByte, const char *lpDefaultChar, int *lpUsedDefaultChar);
int lstrlenA(const char *lpString); int lstrlenW(const wchar_t *lpString); char *lstrcpyA(char *lpString1, const char *lpString2); wchar_t *lstrcpyW(wchar_t *lpString1, const wchar_t *lpString2);
int lstrcmpA(const char *lpString1, const char *lpString2); int lstrcmpW(const wchar_t *lpString1, const wchar_t *lpString2); int lstrcmpiW(const wchar_t *lpString1, const wchar_t *lpString2);
void OutputDebugStringA(const char *lpOutputString); void OutputDebugStringW(const wchar_t *lpOutputString); int IsDebuggerPresent(void);
void *SetUnhandledExceptionFilter(void *lpTopLevelExceptionFilter); long UnhandledExceptionFilter(void *ExceptionInfo);
void *AddVectoredExceptionHandler(uint32_t First, void *Handler); void RaiseException(uint32_t dwExceptionCode, uint32_t dwExceptionFlags, uint32_t nNumberOfArguments, const uintptr_t *lpArguments);
uint32_t TlsAlloc(void); void *TlsGetValue(uint32_t dwTlsIndex); int TlsSetValue(uint32_t dwTlsIndex, void *lpTlsValue); int TlsFree(uint32_t dwTlsIndex);
void *CreateFileMappingW(void *hFile, void *lpFileMappingAttributes, uint32_t flProtect, uint32_t dwMaximumSizeHigh, uint32_t dwMaximumSizeLow, const wchar_t *lpName);
void *MapViewOfFile(void *hFileMappingObject, uint32_t dwDesiredAccess, uint32_t dwFileOffsetHigh, uint32_t dwFileOffsetLow, size_t dwNumberOfBytesToMap);
int UnmapViewOfFile(const void *lpBaseAddress); int DeviceIoControl(void *hDevice, uint32_t dwIoControlCode, void *lpInBuffer, uint32_t nInBufferSize, void *lpOutBuffer, uint32_t nOutBufferSize, uint32_t *lpBytesReturned, void *lpOverlapped);
int MessageBoxA(void *hWnd, const char *lpText, const char *lpCaption, uint32_t uType); int MessageBoxW(void *hWnd, const wchar_t *lpText, const wchar_t *lpCaption, uint32_t uType);
void *FindWindowA(const char *lpClassName, const char *lpWindowName); void *FindWindowW(const wchar_t *lpClassName, const wchar_t *lpWindowName);
void *GetForegroundWindow(void); int ShowWindow(void *hWnd, int nCmdShow); int GetMessageW(void *lpMsg, void *hWnd, uint32_t wMsgFilterMin, uint32_t wMsgFilterMax);
int TranslateMessage(const void *lpMsg); intptr_t DispatchMessageW(const void *lpMsg); void PostQuitMessage(int nExitCode);
intptr_t SendMessageW(void *hWnd, uint32_t Msg, uintptr_t wParam, intptr_t lParam); int PostMessageW(void *hWnd, uint32_t Msg, uintptr_t wParam, intptr_t lParam);
void *CreateWindowExW(uint32_t dwExStyle, const wchar_t *lpClassName, const wchar_t *lpWindowName, uint32_t dwStyle, int X, int Y, int nWidth, int nHeight, void *hWndParent, void *hMenu, void *hInstance, void *lpParam);
uint16_t RegisterClassExW(const void *unnamedParam1); intptr_t DefWindowProcW(void *hWnd, uint32_t Msg, uintptr_t wParam, intptr_t lParam);
int wsprintfA(char *unnamedParam1, const char *format, ...); int wsprintfW(wchar_t *unnamedParam1, const wchar_t *format, ...);
short GetAsyncKeyState(int vKey); void *SetWindowsHookExW(int idHook, void *lpfn, void *hmod, uint32_t dwThreadId);
long RegOpenKeyExA(void *hKey, const char *lpSubKey, uint32_t ulOptions, uint32_t samDesired, void **phkResult);
long RegOpenKeyExW(void *hKey, const wchar_t *lpSubKey, uint32_t ulOptions, uint32_t samDesired, void **phkResult);
long RegQueryValueExA(void *hKey, const char *lpValueName, uint32_t *lpReserved, uint32_t *lpType, uint8_t *lpData, uint32_t *lpcbData);
long RegQueryValueExW(void *hKey, const wchar_t *lpValueName, uint32_t *lpReserved, uint32_t *lpType, uint8_t *lpData, uint32_t *lpcbData);
long RegSetValueExA(void *hKey, const char *lpValueName, uint32_t Reserved, uint32_t dwType, const uint8_t *lpData, uint32_t cbData);
long RegSetValueExW(void *hKey, const wchar_t *lpValueName, uint32_t Reserved, uint32_t dwType, const uint8_t *lpData, uint32_t cbData);
long RegCreateKeyExW(void *hKey, const wchar_t *lpSubKey, uint32_t Reserved, wchar_t *lpClass, uint32_t dwOptions, uint32_t samDesired, void *lpSecurityAttributes, void **phkResult, uint32_t *lpdwDisposition);
long RegCloseKey(void *hKey); long RegDeleteValueW(void *hKey, const wchar_t *lpValueName);
int OpenProcessToken(void *ProcessHandle, uint32_t DesiredAccess, void **TokenHandle); int GetTokenInformation(void *TokenHandle, int TokenInformationClass, void *TokenInformation, uint32_t TokenInformationLength, uint32_t *ReturnLength);
int AdjustTokenPrivileges(void *TokenHandle, int DisableAllPrivileges, void *NewState, uint32_t BufferLength, void *PreviousState, uint32_t *ReturnLength);
int LookupPrivilegeValueW(const wchar_t *lpSystemName, const wchar_t *lpName, void *lpLuid); int GetUserNameW(wchar_t *lpBuffer, uint32_t *pcbBuffer);
void *OpenSCManagerW(const wchar_t *lpMachineName, const wchar_t *lpDatabaseName, uint32_t dwDesiredAccess); int CloseServiceHandle(void *hSCObject);
int CryptAcquireContextW(void *phProv, const wchar_t *szContainer, const wchar_t *szProvider, uint32_t dwProvType, uint32_t dwFlags);
int CryptGenRandom(uintptr_t hProv, uint32_t dwLen, uint8_t *pbBuffer); int CryptReleaseContext(uintptr_t hProv, uint32_t dwFlags);
int WSAStartup(uint16_t wVersionRequested, void *lpWSAData); int WSACleanup(void); int WSAGetLastError(void); int closesocket(uintptr_t s);
int ioctlsocket(uintptr_t s, long cmd, uint32_t *argp); void *gethostbyname(const char *name); unsigned long inet_addr(const char *cp);
void *InternetOpenA(const char *lpszAgent, uint32_t dwAccessType, const char *lpszProxy, const char *lpszProxyBypass, uint32_t dwFlags);
void *InternetOpenUrlA(void *hInternet, const char *lpszUrl, const char *lpszHeaders, uint32_t dwHeadersLength, uint32_t dwFlags, uintptr_t dwContext);
int InternetReadFile(void *hFile, void *lpBuffer, uint32_t dwNumberOfBytesToRead, uint32_t *lpdwNumberOfBytesRead); int InternetCloseHandle(void *hInternet);
void *ShellExecuteA(void *hwnd, const char *lpOperation, const char *lpFile, const char *lpParameters, const char *lpDirectory, int nShowCmd);
void *ShellExecuteW(void *hwnd, const wchar_t *lpOperation, const wchar_t *lpFile, const wchar_t *lpParameters, const wchar_t *lpDirectory, int nShowCmd);
long CoInitialize(void *pvReserved); long CoInitializeEx(void *pvReserved, uint32_t dwCoInit); void CoUninitialize(void);
long CoCreateInstance(const void *rclsid, void *pUnkOuter, uint32_t dwClsContext, const void *riid, void **ppv);
void *_initterm(void *pfbegin, void *pfend); int _initterm_e(void *pfbegin, void *pfend); void __getmainargs(int *argc, char ***argv, char ***env, int doWildCard, void *startInfo);
int __p___argc(void); char ***__p___argv(void); void _cexit(void); int _set_app_type(int type); void __set_app_type(int type);
void *__iob_func(void); void *__acrt_iob_func(unsigned int index); int _onexit(void *func); void _amsg_exit(int rterrnum);
int __stdio_common_vfprintf(uint64_t options, void *stream, const char *format, void *locale, void *arglist);
`;

/** The built-in prototypes by function name; each declaration is parsed when first asked for. */
export interface BuiltinPrototypes {
  get(name: string): Prototype | undefined;
  has(name: string): boolean;
}

/**
 * Built-in prototypes by function name. Parsing all of them took a few milliseconds of a fresh
 * worker's first decompilation, for the handful of names a function calls: the table is an index
 * of the declarations' texts by name, parsed one by one on first use.
 */
export function builtinPrototypes(): BuiltinPrototypes {
  const texts = new Map<string, string>();
  for (const text of (LIBC + WIN32).split(";")) {
    const t = text.trim();
    if (t === "") continue;
    // The name is the identifier before the parameter list's parenthesis (the declarations are
    // plain: no function-pointer return types, no attributes).
    const name = /([A-Za-z_]\w*)\s*\(/.exec(t)?.[1];
    if (name !== undefined) texts.set(name, t);
  }
  const parsed = new Map<string, Prototype>();
  return {
    get(name) {
      const done = parsed.get(name);
      if (done) return done;
      const text = texts.get(name);
      if (text === undefined) return undefined;
      const p = parsePrototype(text);
      parsed.set(name, p);
      return p;
    },
    has: (name) => texts.has(name),
  };
}

/** Every built-in declaration's text (the table's test parses them all). */
export function builtinDeclarations(): string[] {
  return (LIBC + WIN32).split(";").map((t) => t.trim()).filter((t) => t !== "");
}

/**
 * The name a prototype is looked up by: without PLT/IAT decorations (`printf@plt`,
 * `__imp_printf`, `printf@GLIBC_2.2.5`), and without the leading underscore of 32-bit Windows
 * names (`_printf`, `_CreateFileW@28`).
 */
export function prototypeKey(name: string): string {
  return name.replace(/^__imp_/, "").replace(/^_imp__/, "").replace(/@.*$/, "").replace(
    /^\.?_(?=[A-Z])/,
    "",
  );
}
