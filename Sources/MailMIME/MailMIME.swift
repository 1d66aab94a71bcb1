/// MailMIME: RFC 5322 headers and RFC 2045-2047/2231 MIME for MailSearch.
public enum MailMIME {}
