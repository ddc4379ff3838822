"""OAuth 1.0a signature agreement: requests + requests-oauthlib (oauthlib underneath) sign; the
emulator must verify exactly what oauthlib computed (RFC 5849 §3.4.1).

oauthlib decodes the query and a form body as application/x-www-form-urlencoded
(urllib.parse.parse_qsl): '+' is a space, '%20' is a space, repeated names are all kept,
'a=' and a bare 'a' are the empty value. RFC 5849 §3.4.1.3.1 says the same, and Twitter
verified the same way. Every request here is sent as built (requests leaves these queries
untouched) and signed by requests_oauthlib.OAuth1 in the Authorization header.
"""

import os

import pytest
import requests
from oauthlib.oauth1 import Client
from requests_oauthlib import OAuth1

from conftest import (
    CONSUMER_KEY, CONSUMER_SECRET, LAT, LONG, SCREEN_NAME, TOKEN, TOKEN_SECRET,
    TWITTER_PARK_AND_RIDE, TWITTER_POI, as_twitter_sent, twitter_codes, unique,
)


def auth(consumer_key=CONSUMER_KEY, consumer_secret=CONSUMER_SECRET, token=TOKEN, token_secret=TOKEN_SECRET,
         **kwargs):
    return OAuth1(consumer_key, consumer_secret, token, token_secret, **kwargs)


def place_ids(response):
    return [p["id"] for p in response.json()["result"]["places"]]


def explain(response):
    return f"{response.status_code} {response.text[:300]}"


# (raw query after '?', what the emulator must decode `query` to, a place that must be found)
QUERIES = {
    "plus-is-space": ("query=Stevens+Creek&granularity=poi", "Stevens Creek", TWITTER_POI),
    "percent-20": ("query=Stevens%20Creek&granularity=poi", "Stevens Creek", TWITTER_POI),
    "encoded-plus-and-ampersand": ("query=Park+%26+Ride&granularity=poi", "Park & Ride", TWITTER_PARK_AND_RIDE),
    "repeated-parameter": ("query=Stevens&a=1&a=2&granularity=poi", "Stevens", TWITTER_POI),
    "repeated-parameter-unsorted": ("a=2&query=Stevens&a=1&granularity=poi", "Stevens", TWITTER_POI),
    "empty-value": ("query=Stevens&a=&granularity=poi", "Stevens", TWITTER_POI),
    "bare-name": ("query=Stevens&flag&granularity=poi", "Stevens", TWITTER_POI),
    "non-ascii-utf8": ("query=Caf%C3%A9&granularity=poi", "Café", None),
    "non-ascii-lowercase-hex": ("query=caf%c3%a9&granularity=poi", "café", None),
    "emoji": ("query=%E2%98%95%F0%9F%98%80&granularity=poi", "☕😀", None),
    "reserved-encoded": ("query=Stevens&r=%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D&granularity=poi",
                         "Stevens", TWITTER_POI),
    "reserved-raw": ("query=Stevens&r=!*'();:@,/?$&granularity=poi", "Stevens", TWITTER_POI),
    "equals-in-value": ("query=Stevens&r=a=b==&granularity=poi", "Stevens", TWITTER_POI),
    "plus-and-space-mixed": ("query=Stevens+Creek%20Coffee&granularity=poi", "Stevens Creek Coffee", TWITTER_POI),
}


@pytest.mark.parametrize("query,decoded,place", QUERIES.values(), ids=QUERIES.keys())
def test_signed_query_is_accepted(base_url, control, query, decoded, place):
    url = f"{base_url}/1.1/geo/search.json?{query}"
    response = requests.get(url, auth=auth(), timeout=30)
    sent = control.last("geo/search")
    assert response.status_code == 200, explain(response)
    assert sent["parameters"]["query"] == decoded
    if place:
        assert place in place_ids(response)


# (form body as sent, the status text it must post)
BODIES = {
    "plus-is-space": ("status=Hello+from+the+caf%C3%A9", "Hello from the café"),
    "percent-20": ("status=Hello%20from%20the%20caf%C3%A9", "Hello from the café"),
    "encoded-plus": ("status=1%2B1%3D2", "1+1=2"),
    "emoji": ("status=Coffee+%E2%98%95+%F0%9F%98%80", "Coffee ☕ 😀"),
    "reserved-encoded": ("status=r%21%2A%27%28%29%3B%3A%40%26%3D%2B%24%2C%2F%3F%23%5B%5D", "r!*'();:@&=+$,/?#[]"),
    "reserved-raw": ("status=r!*'();:@,/?$", "r!*'();:@,/?$"),
    "repeated-and-empty": ("status=Repeated&a=1&a=2&e=", "Repeated"),
    "lowercase-hex": ("status=caf%c3%a9+ok", "café ok"),
    # The body of Twitter's own "Authorizing a request" example (lower-case %2b, %2c).
    "twitter-docs-example": ("status=Hello%20Ladies%20%2b%20Gentlemen%2c%20a%20signed%20OAuth%20request%21",
                             "Hello Ladies + Gentlemen, a signed OAuth request!"),
}


@pytest.mark.parametrize("body,text", BODIES.values(), ids=BODIES.keys())
def test_signed_form_body_is_accepted(base_url, body, text):
    response = requests.post(f"{base_url}/1.1/statuses/update.json", data=body.encode("utf-8"),
                             headers={"Content-Type": "application/x-www-form-urlencoded"},
                             auth=auth(), timeout=30)
    assert response.status_code == 200, explain(response)
    assert response.json()["text"] == as_twitter_sent(text)


def test_form_content_type_with_charset(base_url):
    # 'application/x-www-form-urlencoded;charset=UTF-8' is still a form body: signed and read.
    response = requests.post(f"{base_url}/1.1/statuses/update.json", data="status=With+charset+caf%C3%A9",
                             headers={"Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"},
                             auth=auth(), timeout=30)
    assert response.status_code == 200, explain(response)
    assert response.json()["text"] == "With charset café"


def test_query_and_form_body_together(base_url):
    url = f"{base_url}/1.1/statuses/update.json?lat={LAT}&long={LONG}&display_coordinates=true"
    text = unique("Query and body, café")
    response = requests.post(url, data={"status": text}, auth=auth(), timeout=30)
    assert response.status_code == 200, explain(response)
    assert response.json()["text"] == as_twitter_sent(text)
    assert response.json()["coordinates"]["coordinates"] == [LONG, LAT]


def test_status_in_query_of_post_with_plus(base_url):
    # tweepy's way: POST with every parameter in the query, spaces as '+', no body.
    response = requests.post(f"{base_url}/1.1/statuses/update.json?status=Query+only+status",
                             auth=auth(), timeout=30)
    assert response.status_code == 200, explain(response)
    assert response.json()["text"] == "Query only status"


def test_twitter_docs_example_with_query(base_url):
    # Twitter's example: POST /1.1/statuses/update.json?include_entities=true, status in the body.
    response = requests.post(f"{base_url}/1.1/statuses/update.json?include_entities=true",
                             data=b"status=Hello%20Ladies%20%2b%20Gentlemen%2c%20a%20signed%20OAuth%20request%21",
                             headers={"Content-Type": "application/x-www-form-urlencoded"}, auth=auth(), timeout=30)
    assert response.status_code == 200, explain(response)
    assert response.json()["text"] == "Hello Ladies + Gentlemen, a signed OAuth request!"


@pytest.mark.parametrize("offset", [3600, -3600])
def test_timestamp_off_is_401_135(base_url, control, offset):
    control.clock(offset)
    response = requests.get(f"{base_url}/1.1/account/verify_credentials.json", auth=auth(), timeout=30)
    assert response.status_code == 401, explain(response)
    assert twitter_codes(response.json()["errors"]) == [135]


def test_realm_in_header_is_not_signed(base_url):
    response = requests.get(f"{base_url}/1.1/account/verify_credentials.json",
                            auth=auth(realm="Twitter API"), timeout=30)
    assert response.status_code == 200, explain(response)


def test_secrets_with_reserved_characters(base_url, control):
    # The HMAC key is encode(consumer_secret) & encode(token_secret).
    control.consumer("odd-consumer", "c%s+c/r=t&")
    control.post("twitter/users", user_id="1002", screen_name="odd_user", token="1002-odd-token",
                 token_secret="t o&k+e/n=")
    response = requests.get(f"{base_url}/1.1/account/verify_credentials.json",
                            auth=auth("odd-consumer", "c%s+c/r=t&", "1002-odd-token", "t o&k+e/n="), timeout=30)
    assert response.status_code == 200, explain(response)
    assert response.json()["screen_name"] == "odd_user"


def test_oauthlib_client_signature_with_fixed_nonce_and_timestamp(base_url):
    import time
    client = Client(CONSUMER_KEY, CONSUMER_SECRET, TOKEN, TOKEN_SECRET,
                    nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", timestamp=str(int(time.time())))
    url = f"{base_url}/1.1/geo/reverse_geocode.json?lat={LAT}&long={LONG}&granularity=poi"
    signed_url, headers, _ = client.sign(url, "GET")
    response = requests.get(signed_url, headers=headers, timeout=30)
    assert response.status_code == 200, explain(response)
    assert TWITTER_POI in place_ids(response)


@pytest.mark.parametrize("transport", ["header", "query", "body"])
def test_oauth_sign_puts_oauth_callback_with_the_other_protocol_parameters(transport):
    """RFC 5849 §2.1: a temporary-credentials request carries oauth_callback as a protocol
    parameter. `waypost oauth-sign --param oauth_callback=…` signs and places it as oauthlib does
    (a black-box hunt found it in the body beside a header with the others, which oauthlib's
    server refuses: "oauth_ params must come from only 1 signaturetype")."""
    import subprocess
    from oauthlib.oauth1 import SIGNATURE_TYPE_AUTH_HEADER, SIGNATURE_TYPE_BODY, SIGNATURE_TYPE_QUERY
    from urllib.parse import parse_qsl, urlsplit
    url = "https://api.twitter.com/oauth/request_token"
    nonce, timestamp, callback = "wIjqoS0123456789", "1318622958", "http://printer.example.com/ready?a=1&b=2"
    printed = subprocess.run(
        [os.environ["WAYPOST_BINARY"], "oauth-sign", "--method", "POST", "--url", url, "--transport", transport,
         "--param", f"oauth_callback={callback}", "--consumer-key", CONSUMER_KEY, "--consumer-secret",
         CONSUMER_SECRET, "--nonce", nonce, "--timestamp", timestamp],
        check=True, capture_output=True, text=True).stdout
    lines = dict(line.split(": ", 1) for line in printed.splitlines())
    kind = {"header": SIGNATURE_TYPE_AUTH_HEADER, "query": SIGNATURE_TYPE_QUERY, "body": SIGNATURE_TYPE_BODY}
    client = Client(CONSUMER_KEY, CONSUMER_SECRET, callback_uri=callback, nonce=nonce, timestamp=timestamp,
                    signature_type=kind[transport])
    headers = {"Content-Type": "application/x-www-form-urlencoded"} if transport == "body" else {}
    signed_url, signed_headers, signed_body = client.sign(url, "POST", body="" if transport == "body" else None,
                                                          headers=headers)

    def header_parameters(value):
        return dict((k, v.strip('"')) for k, v in (p.split("=", 1) for p in value[len("OAuth "):].split(", ")))

    if transport == "header":
        assert header_parameters(lines["Authorization"]) == header_parameters(signed_headers["Authorization"])
        assert "body" not in lines, "the callback is no body parameter"
    elif transport == "query":
        assert dict(parse_qsl(urlsplit(lines["URL"]).query)) == dict(parse_qsl(urlsplit(signed_url).query))
    else:
        assert dict(parse_qsl(lines["body"])) == dict(parse_qsl(signed_body))


# ---- negative controls: the 200s above mean the signature was checked ----

def test_wrong_secret_is_401_32(base_url):
    response = requests.get(f"{base_url}/1.1/geo/search.json?query=Stevens", auth=auth(token_secret="wrong"),
                            timeout=30)
    assert response.status_code == 401, explain(response)
    assert twitter_codes(response.json()["errors"]) == [32]


def test_tampered_query_is_401_32(base_url):
    session = requests.Session()
    prepared = session.prepare_request(
        requests.Request("GET", f"{base_url}/1.1/geo/search.json?query=Stevens", auth=auth()))
    prepared.url = prepared.url.replace("query=Stevens", "query=Stevenz")
    response = session.send(prepared, timeout=30)
    assert response.status_code == 401, explain(response)
    assert twitter_codes(response.json()["errors"]) == [32]


def test_replayed_nonce_is_401_32(base_url):
    session = requests.Session()
    prepared = session.prepare_request(
        requests.Request("GET", f"{base_url}/1.1/account/verify_credentials.json", auth=auth()))
    first = session.send(prepared, timeout=30)
    assert first.status_code == 200, explain(first)
    assert first.json()["screen_name"] == SCREEN_NAME
    again = session.send(prepared, timeout=30)
    assert again.status_code == 401, explain(again)
    assert twitter_codes(again.json()["errors"]) == [32]


def test_missing_oauth_is_400_215(base_url):
    response = requests.get(f"{base_url}/1.1/account/verify_credentials.json", timeout=30)
    assert response.status_code == 400, explain(response)
    assert twitter_codes(response.json()["errors"]) == [215]
