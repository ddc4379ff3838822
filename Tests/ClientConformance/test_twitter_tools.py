"""Python Twitter Tools (PyPI `twitter`, sixohsix's) against the emulator: OAuth 1.0a signed into
the query string and the form body, as RFC 5849 §3.5.2 and §3.5.3 allow and Twitter accepted.

How it signs (twitter/oauth.py, OAuth.encode_params): the call's parameters plus the oauth_*
ones, sorted, urlencoded with spaces as %20, the signature appended last; api.py sends that
string as the query of a GET and as the body of a POST (urllib adds Content-Type
application/x-www-form-urlencoded), and no Authorization header (generate_headers() is {}).

Pointing it at the emulator: Twitter(domain='127.0.0.1:PORT', secure=False, api_version='1.1')
builds 'http://127.0.0.1:PORT/1.1/<path>.json' and signs that URL — the one sent.

Loading it: its top-level package is `twitter`, as python-twitter's is, so run.sh installs it
apart (WAYPOST_TWITTER_TOOLS) and it is imported here under the name `twitter_tools`.
"""

import importlib.util
import os
import pathlib
import sys

import pytest
from oauthlib.oauth1 import Client

from conftest import (
    CONSUMER_KEY, CONSUMER_SECRET, LAT, LONG, SCREEN_NAME, TOKEN, TOKEN_SECRET, USER_ID,
    as_twitter_sent, assert_tweet_json, twitter_codes, unique,
)


def load_twitter_tools():
    """The package from WAYPOST_TWITTER_TOOLS as module `twitter_tools` (its imports are relative)."""
    folder = pathlib.Path(os.environ.get("WAYPOST_TWITTER_TOOLS", "")) / "twitter"
    if not (folder / "__init__.py").is_file():
        pytest.fail(f"Python Twitter Tools is not installed at {folder} (run the suite through run.sh)")
    if "twitter_tools" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "twitter_tools", folder / "__init__.py", submodule_search_locations=[str(folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules["twitter_tools"] = module
        spec.loader.exec_module(module)
    return sys.modules["twitter_tools"]


tt = load_twitter_tools()


def client(host, token=TOKEN, token_secret=TOKEN_SECRET, consumer_key=CONSUMER_KEY,
           consumer_secret=CONSUMER_SECRET, auth=None):
    return tt.Twitter(auth=auth or tt.OAuth(token, token_secret, consumer_key, consumer_secret),
                      domain=host, secure=False, api_version="1.1")


def error_of(call):
    """(HTTP status, [Twitter error codes]) of a call that must fail."""
    with pytest.raises(tt.TwitterHTTPError) as raised:
        call()
    return raised.value.e.code, twitter_codes(raised.value.response_data["errors"])


class HeaderToo(tt.OAuth):
    """Python Twitter Tools' own OAuth (query or body) plus an OAuth Authorization header that
    oauthlib signed for the endpoint's URL: protocol parameters in two places at once, which
    Twitter answered 400/215 whether or not either copy verified."""

    def __init__(self, *args, url):
        super().__init__(*args)
        self.url = url

    def generate_headers(self):
        signer = Client(CONSUMER_KEY, CONSUMER_SECRET, TOKEN, TOKEN_SECRET)
        _, headers, _ = signer.sign(self.url, http_method="GET")
        return {"Authorization": headers["Authorization"]}


def test_get_is_signed_in_the_query(host, control):
    user = client(host).account.verify_credentials()
    assert user["id"] == USER_ID and user["screen_name"] == SCREEN_NAME
    sent = control.last("account/verify_credentials")
    assert sent["method"] == "GET" and sent["status"] == 200
    assert "authorization" not in sent["headers"]
    assert sent["parameters"]["oauth_consumer_key"] == CONSUMER_KEY
    assert sent["parameters"]["oauth_token"] == TOKEN
    assert sent["parameters"]["oauth_signature"] == "REDACTED"


def test_post_is_signed_in_the_body_with_location(host, control):
    control.geo_enabled(True)
    text = unique("Python Twitter Tools at the café ☕ 1+1=2 & more")
    api = client(host)
    tweet = api.statuses.update(status=text, lat=LAT, long=LONG, display_coordinates="true")
    assert_tweet_json(tweet, text)
    assert tweet["coordinates"] == {"type": "Point", "coordinates": [LONG, LAT]}
    sent = control.last("statuses/update")
    assert sent["method"] == "POST" and sent["status"] == 200
    assert "authorization" not in sent["headers"]
    assert sent["headers"]["content-type"].startswith("application/x-www-form-urlencoded")
    assert sent["parameters"]["status"] == text
    assert sent["parameters"]["lat"] == str(LAT) and sent["parameters"]["long"] == str(LONG)
    assert sent["parameters"]["oauth_signature"] == "REDACTED"
    # The oauth_* parameters are the request's signature, not the tweet's fields.
    latest = api.account.verify_credentials()["status"]
    assert latest["text"] == as_twitter_sent(text) and latest["coordinates"]["coordinates"] == [LONG, LAT]
    timeline = api.statuses.user_timeline(count=1)
    assert [t["text"] for t in timeline] == [as_twitter_sent(text)]
    assert control.last("statuses/user_timeline")["parameters"]["count"] == "1"


def test_reverse_geocode_in_the_query(host, control):
    result = client(host).geo.reverse_geocode(lat=LAT, long=LONG, granularity="poi")
    assert result["result"]["places"], result
    # The echoed request URL is the call's, without the oauth_* parameters signed into it.
    assert "oauth_" not in result["query"]["url"], result["query"]["url"]
    assert result["query"]["params"]["granularity"] == "poi"
    assert control.last("geo/reverse_geocode")["parameters"]["oauth_signature"] == "REDACTED"


def test_wrong_consumer_secret_is_401_32_in_query_and_body(host):
    api = client(host, consumer_secret="guess")
    assert error_of(lambda: api.account.verify_credentials()) == (401, [32])
    assert error_of(lambda: api.statuses.update(status=unique("wrong secret"))) == (401, [32])


def test_unknown_token_is_401_89_in_query_and_body(host):
    api = client(host, token="1001-nobody")
    assert error_of(lambda: api.account.verify_credentials()) == (401, [89])
    assert error_of(lambda: api.statuses.update(status=unique("unknown token"))) == (401, [89])


def test_stale_timestamp_is_401_135(host, control):
    control.clock(3600)
    assert error_of(lambda: client(host).account.verify_credentials()) == (401, [135])


def test_header_and_query_together_is_400_215(host, base_url):
    url = f"{base_url}/1.1/account/verify_credentials.json"
    auth = HeaderToo(TOKEN, TOKEN_SECRET, CONSUMER_KEY, CONSUMER_SECRET, url=url)
    assert error_of(lambda: client(host, auth=auth).account.verify_credentials()) == (400, [215])


def test_header_and_body_together_is_400_215(host, base_url, control):
    auth = HeaderToo(TOKEN, TOKEN_SECRET, CONSUMER_KEY, CONSUMER_SECRET, url=f"{base_url}/1.1/statuses/update.json")
    assert error_of(lambda: client(host, auth=auth).statuses.update(status=unique("two places"))) == (400, [215])
    assert control.last("statuses/update")["status"] == 400
    assert client(host).statuses.user_timeline() == []
