"""Signs one Presspack API call with requests-oauthlib (an independent OAuth 1.0a client)
and prints the HTTP status and body. Used by tests/e2e/auth.rs.

usage: oauth_client.py ENDPOINT KEY SECRET MODE [name=value ...]
MODE: get-header, post-header, post-body, get-query, post-header-sha256
"""

import sys

import requests
from oauthlib.oauth1 import SIGNATURE_HMAC_SHA1, SIGNATURE_HMAC_SHA256, SIGNATURE_TYPE_AUTH_HEADER, \
    SIGNATURE_TYPE_BODY, SIGNATURE_TYPE_QUERY
from requests_oauthlib import OAuth1


def main():
    endpoint, key, secret, mode, *pairs = sys.argv[1:]
    params = dict(pair.split("=", 1) for pair in pairs)
    http_method, placement, method = {
        "get-header": ("GET", SIGNATURE_TYPE_AUTH_HEADER, SIGNATURE_HMAC_SHA1),
        "post-header": ("POST", SIGNATURE_TYPE_AUTH_HEADER, SIGNATURE_HMAC_SHA1),
        "post-body": ("POST", SIGNATURE_TYPE_BODY, SIGNATURE_HMAC_SHA1),
        "get-query": ("GET", SIGNATURE_TYPE_QUERY, SIGNATURE_HMAC_SHA1),
        "post-header-sha256": ("POST", SIGNATURE_TYPE_AUTH_HEADER, SIGNATURE_HMAC_SHA256),
    }[mode]
    auth = OAuth1(key, client_secret=secret, signature_method=method, signature_type=placement)
    if http_method == "GET":
        response = requests.get(endpoint, params=params, auth=auth, timeout=10)
    else:
        response = requests.post(endpoint, data=params, auth=auth, timeout=10)
    print(response.status_code)
    print(response.text)


if __name__ == "__main__":
    main()
