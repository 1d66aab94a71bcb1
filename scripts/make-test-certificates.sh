#!/usr/bin/env bash
# Makes the certificates the TLS trust tests need, with the openssl command-line tool:
#   ca.pem          a test CA (trusted by the tests that want trust)
#   good.pem        localhost / 127.0.0.1, signed by the CA
#   otherhost.pem   mail.example.org only, signed by the CA (host name mismatch)
#   expired.pem     localhost, signed by the CA, valid only in January 2020
#   cnonly.pem      CN=localhost and no subject alternative name, signed by the CA
#   partialwild.pem mail*.example.org only (a partial wildcard), signed by the CA
#   wildcard.pem    *.example.org only (a whole-label wildcard), signed by the CA
#   leaf.key        the key of all the leaf certificates
# Usage: scripts/make-test-certificates.sh DIR
set -euo pipefail
dir=${1:?usage: make-test-certificates.sh DIR}
mkdir -p "$dir"
cd "$dir"
quiet() { "$@" >/dev/null 2>&1 || { echo "error: $* failed" >&2; exit 1; }; }
quiet openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
    -subj "/CN=MailSearch Test CA" -days 30 -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign
quiet openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key -out leaf.csr -subj /CN=localhost
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > good.ext
printf 'subjectAltName=DNS:mail.example.org\n' > other.ext
quiet openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -extfile good.ext -out good.pem
quiet openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -extfile other.ext \
    -out otherhost.pem
quiet openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -out cnonly.pem
printf 'subjectAltName=DNS:mail*.example.org\n' > partialwild.ext
quiet openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -extfile partialwild.ext \
    -out partialwild.pem
printf 'subjectAltName=DNS:*.example.org\n' > wildcard.ext
quiet openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -extfile wildcard.ext \
    -out wildcard.pem
cat > ca.cnf <<CNF
[ ca ]
default_ca = test
[ test ]
dir = .
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = anything
x509_extensions = leaf
unique_subject = no
[ anything ]
commonName = supplied
[ leaf ]
subjectAltName = DNS:localhost,IP:127.0.0.1
CNF
: > index.txt
echo 01 > serial
quiet openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in leaf.csr -out expired.pem \
    -startdate 20200101000000Z -enddate 20200201000000Z -notext
