#!/usr/bin/perl
# A Perl Twitter client, as Debian packages it, calling `waypost emulator`:
#   lite         Net::Twitter::Lite::WithAPIv1_1 (libnet-twitter-lite-perl): OAuth 1.0a signed by
#                Net::OAuth into the query string of a GET (to_url) and the form body of a POST
#                (to_post_body), RFC 5849 §3.5.2 and §3.5.3; no Authorization header.
#   net-twitter  Net::Twitter with traits API::RESTv1_1 and OAuth (libnet-twitter-perl): OAuth in
#                the Authorization header (to_authorization_header), RFC 5849 §3.5.1.
#
# usage: twitter_client.pl lite|net-twitter API_URL CALLS_JSON
#   API_URL     http://127.0.0.1:PORT/1.1 (ssl => 0: the emulator speaks http)
#   CALLS_JSON  [["update", {"status": "…", "lat": "37.3", "long": "-122.0"}], ["verify_credentials", {}]]
# Credentials come from WAYPOST_CONSUMER_KEY, WAYPOST_CONSUMER_SECRET, WAYPOST_TOKEN and
# WAYPOST_TOKEN_SECRET. WAYPOST_EXTRA_AUTHORIZATION, when set, is an Authorization header the
# user agent adds to every request (LWP's default_header), as a misconfigured proxy or agent would.
#
# Prints one line of JSON per call, in order: {"call": NAME, "status": HTTP status, "body": the
# decoded answer} — the client's own result on success, its error's response on failure.
use strict;
use warnings;
use JSON;

my ($client, $api_url, $calls_json) = @ARGV;
die "usage: $0 lite|net-twitter API_URL CALLS_JSON\n" unless defined $calls_json;
my $json = JSON->new->utf8->canonical;
my $calls = $json->decode($calls_json);
my %credentials = (
    consumer_key        => $ENV{WAYPOST_CONSUMER_KEY},
    consumer_secret     => $ENV{WAYPOST_CONSUMER_SECRET},
    access_token        => $ENV{WAYPOST_TOKEN},
    access_token_secret => $ENV{WAYPOST_TOKEN_SECRET},
);

my ($twitter, $ua);
if ($client eq 'lite') {
    require Net::Twitter::Lite::WithAPIv1_1;
    $twitter = Net::Twitter::Lite::WithAPIv1_1->new(
        %credentials, apiurl => $api_url, ssl => 0, useragent_args => { timeout => 30 });
    $ua = $twitter->{ua};
} elsif ($client eq 'net-twitter') {
    require Net::Twitter;
    $twitter = Net::Twitter->new(traits => [qw/API::RESTv1_1 OAuth/], %credentials, apiurl => $api_url, ssl => 0);
    $ua = $twitter->ua;
    $ua->timeout(30);
} else {
    die "$0: unknown client '$client' (lite or net-twitter)\n";
}
$ua->default_header(Authorization => $ENV{WAYPOST_EXTRA_AUTHORIZATION}) if $ENV{WAYPOST_EXTRA_AUTHORIZATION};
binmode STDOUT;

for my $call (@$calls) {
    my ($name, $args) = @$call;
    my $result = eval { $twitter->$name({%$args}) };
    my $line;
    if (my $error = $@) {
        die $error unless ref $error && $error->can('http_response');
        my $response = $error->http_response;
        my $body = eval { $json->decode($response->decoded_content // '') } // $response->decoded_content;
        $line = { call => $name, status => 0 + $response->code, body => $body };
    } else {
        $line = { call => $name, status => 200, body => $result };
    }
    print $json->encode($line), "\n";
}
