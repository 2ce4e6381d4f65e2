"""The SCRAM user kind: credentials set and removed with AlterUserScramCredentials."""
