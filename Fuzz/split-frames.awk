# Splits a byte stream of IMAP responses or commands into one file per frame (a line plus the
# literals it announces and the lines they continue into), for seeding a fuzzer corpus.
#
#   LC_ALL=C awk -v dir=DIR -v prefix=NAME [-v limit=N] -f Fuzz/split-frames.awk FILE
#
# Writes DIR/NAME-0001, DIR/NAME-0002, ... (at most `limit` files when given). Run it with
# LC_ALL=C so lengths count bytes.
BEGIN { frame = ""; literal = 0; count = 0 }
{
    line = $0 "\n"
    while (line != "") {
        if (literal > 0) {
            if (length(line) <= literal) {
                frame = frame line
                literal -= length(line)
                line = ""
                break
            }
            frame = frame substr(line, 1, literal)
            line = substr(line, literal + 1)
            literal = 0
        }
        frame = frame line
        if (match(line, /[{][0-9]+[+-]?[}]\r?\n$/)) {
            announcement = substr(line, RSTART + 1)
            sub(/[+-]?[}]\r?\n$/, "", announcement)
            literal = announcement + 0
            line = ""
            if (literal == 0) { literal = -1 }
            break
        }
        emit()
        line = ""
    }
    if (literal < 0) { literal = 0 }
}
END { if (frame != "") emit() }
function emit() {
    if (limit != "" && count >= limit + 0) { frame = ""; return }
    count++
    file = sprintf("%s/%s-%04d", dir, prefix, count)
    printf "%s", frame > file
    close(file)
    frame = ""
}
