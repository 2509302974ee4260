"""A client in Python's standard library (http.client), tested through the reference's admin API.

It adds its own behaviour (a 429 with Retry-After: 1 on its next request) with POST /v1/behaviours,
then reads the customers: `correct` waits as Retry-After says, `faulty` retries at once. Settings
come from the environment the test gives it: API_HOST, API_PORT, ADMIN_HOST, CA_FILE, API_KEY,
KEY_ID, ADMIN_TOKEN, MODE. It prints the statuses it got, never a key.
"""
import http.client
import json
import os
import socket
import ssl
import time

MAX_ATTEMPTS = 3


class LoopbackHTTPSConnection(http.client.HTTPSConnection):
    """Python does not resolve *.localhost everywhere: connect to loopback, keep the name for SNI and Host."""

    def connect(self):
        sock = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def call(host, method, path, headers, body=None):
    context = ssl.create_default_context(cafile=os.environ["CA_FILE"])
    connection = LoopbackHTTPSConnection(host, int(os.environ["API_PORT"]), context=context, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("Retry-After")
    finally:
        connection.close()


def main():
    mode = os.environ["MODE"]
    behaviour = {"kind": "error", "status": 429, "code": "rate_limited", "retryAfter": 1, "times": 1, "keyId": os.environ["KEY_ID"]}
    status, _ = call(
        os.environ["ADMIN_HOST"],
        "POST",
        "/v1/behaviours",
        {"Authorization": "Bearer " + os.environ["ADMIN_TOKEN"], "Content-Type": "application/json"},
        json.dumps({"behaviours": [behaviour]}),
    )
    assert status == 201, f"the admin API refused the behaviour: {status}"
    headers = {
        "Authorization": "Bearer " + os.environ["API_KEY"],
        "Accept": "application/json",
        "User-Agent": f"python-http-client-{mode}",
    }
    statuses = []
    for _ in range(MAX_ATTEMPTS):
        status, retry_after = call(os.environ["API_HOST"], "GET", "/v1/customers", headers)
        statuses.append(status)
        if status != 429:
            break
        if mode == "correct" and retry_after is not None:
            time.sleep(int(retry_after))
    print(json.dumps(statuses))


main()
