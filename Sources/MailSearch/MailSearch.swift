/// MailSearch module.
public enum MailSearch {}
