"""Signs Presspack API calls with requests-oauthlib (an independent OAuth 1.0a client), one
session for all of them, and prints for each the HTTP status, the Content-Type and the body in
base64 (it may be a PNG), one a line. Used by tests/e2e (helpers::python_calls).

usage: oauth_client.py ENDPOINT KEY SECRET MODE < calls.json
calls.json: a JSON array of calls, each an object of parameter names and values.
MODE: get-header, post-header, post-body, get-query, post-header-sha256
"""

import base64
import json
import sys

import requests
from oauthlib.oauth1 import SIGNATURE_HMAC_SHA1, SIGNATURE_HMAC_SHA256, SIGNATURE_TYPE_AUTH_HEADER, \
    SIGNATURE_TYPE_BODY, SIGNATURE_TYPE_QUERY
from requests_oauthlib import OAuth1


def main():
    endpoint, key, secret, mode = sys.argv[1:]
    http_method, placement, method = {
        "get-header": ("GET", SIGNATURE_TYPE_AUTH_HEADER, SIGNATURE_HMAC_SHA1),
        "post-header": ("POST", SIGNATURE_TYPE_AUTH_HEADER, SIGNATURE_HMAC_SHA1),
        "post-body": ("POST", SIGNATURE_TYPE_BODY, SIGNATURE_HMAC_SHA1),
        "get-query": ("GET", SIGNATURE_TYPE_QUERY, SIGNATURE_HMAC_SHA1),
        "post-header-sha256": ("POST", SIGNATURE_TYPE_AUTH_HEADER, SIGNATURE_HMAC_SHA256),
    }[mode]
    auth = OAuth1(key, client_secret=secret, signature_method=method, signature_type=placement)
    session = requests.Session()
    for params in json.load(sys.stdin):
        if http_method == "GET":
            response = session.get(endpoint, params=params, auth=auth, timeout=30)
        else:
            response = session.post(endpoint, data=params, auth=auth, timeout=30)
        print(response.status_code)
        print(response.headers.get("content-type", ""))
        print(base64.b64encode(response.content).decode())


if __name__ == "__main__":
    main()
