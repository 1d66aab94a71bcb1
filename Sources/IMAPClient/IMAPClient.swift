/// IMAPClient module.
public enum IMAPClient {}
