/**
 * fetch, sent once more when the connection it reused was closed by the server
 * before any byte of the response came back. Node's fetch keeps idle sockets
 * open longer than gunicorn (2 s) does, and a test blocked in execFileSync (a
 * stock CLI run) can outlive the API's 5 s keep-alive: the next request then
 * goes out on a socket whose close was not read yet ("other side closed").
 * The server closed it idle, so it never saw the request: sending it again is safe.
 */
export async function fetchAgainIfIdleClosed(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET') return fetch(url, init);
    throw err;
  }
}
